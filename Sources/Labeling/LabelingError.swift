import FileFormats

/// A user-facing failure of labelling (markers, results folders; decoding fails with `Video.VideoError`): it names the file and the reason, on one line, and says
/// which kind of failure it is.
public typealias LabelingError = KindedFileError<LabelingFailure>

/// The kinds of `LabelingError`.
public enum LabelingFailure: Sendable, Equatable {
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
    /// Inside a results folder, a symbolic link, FIFO, device or other entry that is not what belongs there: never
    /// followed, opened or replaced.
    case refusedFile
}
