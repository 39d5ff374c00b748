/// A decode failure a person can act on: which file, and why, on one line.
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file as the caller named it.
    public let path: String
    /// What went wrong, without the path (e.g. "empty file").
    public let reason: String

    /// Makes an error for `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `"<path>: <reason>"`.
    public var description: String { "\(path): \(reason)" }
}
