/// A dataset problem a person must fix. `description` is "path: reason", one line.
public struct DatasetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or folder concerned.
    public let path: String
    /// What is wrong, for a person.
    public let reason: String
    /// Creates an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    /// "path: reason".
    public var description: String { "\(path): \(reason)" }
}
