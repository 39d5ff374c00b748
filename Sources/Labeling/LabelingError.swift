import FileFormats

/// A user-facing failure of labelling (markers, results folders; decoding fails with `Video.VideoError`): it names the file and the reason, on one line.
public struct LabelingError: PathReportingError, Equatable {
    /// What went wrong, for code that reacts differently to different failures (and for tests).
    public enum Kind: Sendable, Equatable {
        /// The file or folder does not exist.
        case fileNotFound
        /// The source has no frames (empty folder, or every frame unreadable).
        case noFrames
        /// The classifier returned the wrong number of rows or probabilities.
        case classifierMismatch
        /// Writing an output file failed.
        case writeFailed
        /// A results folder belongs to another run (other movies or settings), or a result file is damaged.
        case resultsMismatch
        /// Movies of a run have no result yet.
        case resultsMissing
    }

    /// The kind of failure.
    public let kind: Kind
    /// The file or folder concerned.
    public let path: String
    /// One-line explanation.
    public let reason: String

    /// Makes an error.
    public init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }
}
