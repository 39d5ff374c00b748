/// A user-facing failure of a workflow, one line, naming the file where there is one: "path: reason".
public struct WorkbenchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or folder concerned, if any.
    public let path: String?
    /// What is wrong, in one line.
    public let reason: String

    public init(_ reason: String) {
        path = nil
        self.reason = reason
    }

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { path.map { "\($0): \(reason)" } ?? reason }
}
