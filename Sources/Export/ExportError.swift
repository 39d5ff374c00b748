/// An export that could not be completed. `description` is "path: reason", one line, with `path` the output file.
///
/// Nothing is left at `path` when an export fails: the file is only ever written whole (see `AtomicFile`).
public struct ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The output file that was to be written.
    public let path: String
    /// What went wrong, for a person.
    public let reason: String

    /// Creates an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// "path: reason".
    public var description: String { "\(path): \(reason)" }
}
