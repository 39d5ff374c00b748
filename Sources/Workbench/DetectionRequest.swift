import Detection
import FileFormats
import TensorCore

/// What `workbench detect` is asked to do: pictures (files or folders) or videos, never both in one call.
public struct DetectionRequest: Sendable {
    /// Which detector finds the boxes.
    public enum Detector: Sendable, Equatable {
        /// The person detector: this file, or nil for the one `DetectorLocation` finds (`$WORKBENCH_DETECTOR`, else
        /// the installed or set-up copy).
        case person(path: String?)
        /// A detector model `train` made from annotations; the minimum score defaults to its stored threshold.
        case model(path: String)
    }

    /// Pictures, folders of pictures, or video files, as given.
    public var inputs: [String]
    /// The detector; by default the person detector set-up installs.
    public var detector = Detector.person(path: nil)
    /// Worker threads of the detector.
    public var threads = Parallel.coreCount
    /// Boxes scoring below this are not reported (0–1); nil is the detector's default
    /// (`ObjectDetecting.defaultMinimumConfidence`: a trained model's stored threshold, 0.5 for the person detector).
    public var minimumConfidence: Float?
    /// `minimumConfidence`, or the detector's default once the run knows its detector.
    var resolvedMinimumConfidence: Float = 0.5
    /// Report only this label; nil reports every label the detector knows.
    public var label: String?
    /// `TiledDetection`'s grid side; 1 runs the detector on the whole frame only.
    public var tilesPerSide = 1
    /// Seconds between sampled video frames.
    public var every = 0.2
    /// When a clip starts and stops.
    public var clipRule = PresenceClips.Rule()
    /// Annotated copies: a folder for pictures; a file for one video or a folder for several.
    public var annotate: String?
    /// The folder the clips go into (videos only), created if missing.
    public var clips: String?
    /// WebVTT presence captions: a file for one video or a folder for several.
    public var vtt: String?
    /// The presence timeline page (videos only).
    public var html: String?
    /// Pictures over this many pixels are refused from their header.
    public var maximumPixels = 300_000_000
    /// A trained detector model's answer on each picture, frame or tile averaged with its mirror's before the boxes
    /// are read (`--tta`, `MirrorAveraging`): twice the network's work. The person detector refuses it.
    public var mirror = false

    /// A request over `inputs` with the defaults.
    public init(inputs: [String]) {
        self.inputs = inputs
    }
}

/// What a detection run reports as it goes.
public enum DetectionEvent: Sendable {
    /// A picture that cannot be read: skipped and counted, the run goes on.
    case skipped(WorkbenchError)
    /// A picture is done.
    case picture(PictureDetection)
    /// Sampling of a video starts; `expectedSamples` from its probed duration, when known.
    case videoStarted(path: String, expectedSamples: Int?)
    /// Samples of the current video done so far.
    case progress(done: Int, expected: Int?)
    /// What the page's player plays for the current video (with a page only; before its `video` event).
    case pageVideo(PageVideo)
    /// A video is done (its clips written, when asked for).
    case video(VideoDetection)
    /// A file was written: an annotated copy, a clip, captions or the page.
    case wrote(String)
}

/// The end of a detection run.
public struct DetectionResult: Sendable {
    /// The pictures done, in input order (empty for videos).
    public var pictures: [PictureDetection] = []
    /// The videos done, in input order (empty for pictures).
    public var videos: [VideoDetection] = []
    /// Pictures that could not be read.
    public var failed = 0
    /// Wall-clock seconds.
    public var seconds = 0.0
}
