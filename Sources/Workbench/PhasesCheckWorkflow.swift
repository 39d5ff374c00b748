import Phases
import Video

/// What `workbench phases --check` is asked to do: read a phase file written by hand (or by `phases -o`) and check
/// it, against a video's length when one is given.
public struct PhasesCheckRequest: Sendable {
    /// The phase file (`PhaseTimeline` JSON).
    public var phases: String
    /// The video whose length the phases must fit in, if any. The file's own `"video"` member is informational:
    /// the video checked is this one.
    public var video: String?

    /// A check of `phases`, against `video` when given.
    public init(phases: String, video: String? = nil) {
        self.phases = phases
        self.video = video
    }
}

/// What a check reports as it goes: nothing (one file read, one video probed); the type keeps the shape every job
/// has.
public enum PhasesCheckEvent: Sendable {}

/// What a check found: the phase file, valid.
public struct PhasesCheckResult: Sendable {
    /// The phases as read.
    public var timeline: PhaseTimeline
    /// The video's length in seconds, when a video was given and its length is known.
    public var videoDuration: Double?
}

/// `workbench phases --check`: a phase file's rules (`PhaseTimeline.validate`) and, with a video, that its phases
/// end within the video's length.
public enum PhasesCheckWorkflow {
    /// Reads and checks `request.phases`; errors name the phase file (or the video, when it cannot be probed), one
    /// line each.
    public static func run(
        _ request: PhasesCheckRequest, events: (PhasesCheckEvent) -> Void = { _ in }
    ) throws(WorkbenchError) -> PhasesCheckResult {
        let path = request.phases
        return try WorkbenchError.passingOn(naming: path) {
            let timeline = try PhaseTimeline.read(path: path)
            var duration: Double?
            if let video = request.video {
                // The frames are counted as `sync` counts them (a stated duration can lie), with its half a frame
                // of slack.
                _ = try PhasesWorkflow.probeVideo(video)
                let input = try SideBySideVideo.probe(videos: [video], tools: try ExternalTools.locate(for: video))[0]
                let counted = Double(input.frameCount) / input.framesPerSecond
                duration = counted
                try timeline.checkFits(videoDuration: counted, tolerance: 0.5 / input.framesPerSecond, path: path)
            }
            return PhasesCheckResult(timeline: timeline, videoDuration: duration)
        }
    }
}
