import FileFormats

/// A user-facing failure of decoding, probing or rendering video: it names the file and the reason, on one line, and says
/// which kind of failure it is.
public typealias VideoError = KindedFileError<VideoFailure>

extension ErrorHint {
    /// The input chosen to take the sound from has none: another input (one with sound) is to be chosen.
    public static let chooseInputWithSound = ErrorHint("Video.chooseInputWithSound")
}

/// The kinds of `VideoError`.
public enum VideoFailure: Sendable, Equatable {
    /// The file or folder does not exist.
    case fileNotFound
    /// ffprobe could not read the file as a media file.
    case notAVideo
    /// The file is media but has no video stream (e.g. audio only).
    case noVideoStream
    /// The file is a still picture (a PNG, a JPEG), which ffprobe reads as a one-frame stream: not a video.
    case stillPicture
    /// ffmpeg or ffprobe is not installed or not on PATH.
    case toolNotFound
    /// ffmpeg or ffprobe ran and failed.
    case toolFailed
    /// The source has no frames (empty folder, or every frame unreadable).
    case noFrames
    /// A folder could not be listed.
    case unreadableFolder
    /// A frame folder's names do not give each frame its own time (two files with one number, or a number
    /// too large).
    case ambiguousFrames
    /// A caller-supplied value is out of range (e.g. a non-positive frame interval).
    case invalidArgument
    /// Writing an output file failed.
    case writeFailed
}
