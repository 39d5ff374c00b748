/// A user-facing failure of a workflow, one line, naming the file where there is one.
public struct WorkbenchError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
    /// An error about one file: "path: reason".
    public init(path: String, reason: String) { self.description = "\(path): \(reason)" }
}
