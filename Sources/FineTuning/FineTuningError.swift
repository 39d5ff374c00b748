/// Why fine-tuning could not run: a one-line reason, naming the file when one is at fault.
public struct FineTuningError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file at fault, if any.
    public var path: String?
    /// What went wrong.
    public var reason: String

    /// An error about `path` (or about no file in particular).
    public init(path: String? = nil, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `path: reason`, or the reason alone.
    public var description: String { path.map { "\($0): \(reason)" } ?? reason }
}
