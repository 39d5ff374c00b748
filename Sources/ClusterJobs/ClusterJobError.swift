/// A failure planning, writing or submitting a cluster job: one line, naming the file where there is one.
public struct ClusterJobError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or folder concerned, if any.
    public let path: String?
    /// What is wrong, in one line.
    public let reason: String

    /// An error about no file in particular (a bad option value, a missing variable).
    public init(reason: String) {
        path = nil
        self.reason = reason
    }

    /// An error about `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// "path: reason", or the reason alone.
    public var description: String { path.map { "\($0): \(reason)" } ?? reason }
}
