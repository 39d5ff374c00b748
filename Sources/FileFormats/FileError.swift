/// A failure a person can act on: the file or folder concerned and the reason, printed as one line,
/// `"<path>: <reason>"`. Every module's user-facing errors conform, so the CLI reports them all alike.
public protocol PathReportingError: Error, Sendable, CustomStringConvertible {
    /// The file or folder as the caller named it.
    var path: String { get }
    /// What is wrong, without the path, on one line.
    var reason: String { get }
}

extension PathReportingError {
    /// `"<path>: <reason>"`.
    public var description: String { "\(path): \(reason)" }
}

/// The one implementation of a plain path-and-reason error. `Domain` is an empty marker type per module, so that
/// `DatasetError`, `ImageError`, `ExportError` … stay distinct types that callers can catch separately, while
/// sharing this code.
public struct FileError<Domain>: PathReportingError, Equatable {
    /// The file or folder as the caller named it.
    public let path: String
    /// What is wrong, without the path, on one line.
    public let reason: String

    /// Makes an error for `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
