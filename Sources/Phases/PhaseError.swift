import FileFormats

/// A user-facing failure of the phase work (a phase file, a video too short for its phases, an order the model
/// cannot follow): it names the file and the reason on one line, and says which kind of failure it is.
public typealias PhaseError = KindedFileError<PhaseFailure>

/// The kinds of `PhaseError`.
public enum PhaseFailure: Sendable, Equatable {
    /// The phase file cannot be read (missing, a folder, a FIFO, too large).
    case unreadable
    /// The phase file is not JSON.
    case notJSON
    /// The JSON is not a phase timeline: a member missing or of the wrong kind.
    case notPhaseTimeline
    /// `order` is empty, or names a label twice.
    case invalidOrder
    /// A phase's label is not one of `order`.
    case labelNotInOrder
    /// A label of `order` has no phase.
    case phaseMissing
    /// The phases are not in `order`'s order (or one label has two phases).
    case outOfOrder
    /// A time is negative or not a finite number.
    case invalidTime
    /// A phase does not end after it starts.
    case emptyPhase
    /// A phase starts before the previous one ends.
    case overlapping
    /// A phase file names another of the input videos than the one it was given for (`PhaseFileVideos`).
    case otherVideo
    /// A phase reaches past the end of its video.
    case beyondVideo
    /// The video is too short to hold every phase at its minimum length.
    case videoTooShort
    /// A label of the order is not one of the model's labels, or the model cannot find phases.
    case labelNotInModel
    /// Writing an output failed.
    case writeFailed
}
