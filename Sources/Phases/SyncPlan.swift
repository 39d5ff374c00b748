import FileFormats

/// How two to four videos play phase by phase so that every phase starts at the same moment in all of them: for
/// each phase, the frames each input plays and how long it then holds its last frame while the slowest input
/// finishes the phase. Pure arithmetic on frame numbers; `Video.SideBySideVideo` renders it with ffmpeg.
///
/// Frames, not seconds, so the plan is exact: input i at `r_i` frames per second starts phase p on its frame
/// `s_ip = ⌈start · r_i⌉` (the first frame shown at or after the phase's start) and ends it before `e_ip`, the
/// frame of the phase's end, so it plays `n_ip = e_ip − s_ip` frames. On the output's clock (the first input's
/// rate `R`) that is `m_ip` frames: `n_ip` itself when `r_i = R`, else the difference of the cumulative counts
/// `round(c · R / r_i)` at the phase's two ends (c counted from the input's first phase start), which is what
/// ffmpeg's `fps` filter gives the stream (±1 frame per boundary). The phase lasts `L_p = max_i m_ip` output frames
/// and input i holds its last frame of the phase for `L_p − m_ip`. The output lasts `Σ_p L_p` frames.
///
/// What is left out: everything before the first phase's start and after the last phase's end, in every input
/// (the output is the phases, all starting together).
public struct SyncPlan: Sendable, Equatable {
    /// One video to play: its phases and what its stream holds.
    public struct Input: Sendable, Equatable {
        /// The phases file (or its description), named in errors.
        public var source: String
        /// The video's phases.
        public var timeline: PhaseTimeline
        /// The video stream's frame rate.
        public var framesPerSecond: Double
        /// How many frames the video stream has.
        public var frameCount: Int

        /// An input from its parts.
        public init(source: String, timeline: PhaseTimeline, framesPerSecond: Double, frameCount: Int) {
            self.source = source
            self.timeline = timeline
            self.framesPerSecond = framesPerSecond
            self.frameCount = frameCount
        }
    }

    /// What one input does during one phase.
    public struct Segment: Sendable, Equatable {
        /// The input's first frame of the phase (counted from the video's first frame, 0-based).
        public var firstFrame: Int
        /// How many of its own frames the input plays in the phase.
        public var frameCount: Int
        /// How many output frames those take (equal to `frameCount` at the output's frame rate).
        public var outputFrameCount: Int
        /// How many output frames the input then holds its last frame of the phase.
        public var holdFrameCount: Int
    }

    /// One phase of the output.
    public struct Phase: Sendable, Equatable {
        /// The phase's label.
        public var label: String
        /// The output frame the phase starts on.
        public var outputFirstFrame: Int
        /// How many output frames it lasts: the longest input's share.
        public var outputFrameCount: Int
        /// What each input does, in input order.
        public var segments: [Segment]
    }

    /// The phases' labels, in order.
    public let order: [String]
    /// The output's frame rate: the first input's.
    public let framesPerSecond: Double
    /// Each input's frame rate, in input order.
    public let inputFramesPerSecond: [Double]
    /// The phases in order.
    public let phases: [Phase]

    /// The output's length in frames: the sum over phases of the longest input's phase.
    public var outputFrameCount: Int { phases.reduce(0) { $0 + $1.outputFrameCount } }
    /// The output's length in seconds.
    public var duration: Double { Double(outputFrameCount) / framesPerSecond }

    /// The most inputs a plan takes (a 2 × 2 grid).
    public static let maximumInputs = 4

    /// Plans `inputs` (2 to 4). Errors (`PhaseError`) name the phases file and say what is wrong: a timeline that
    /// breaks `PhaseTimeline.validate`'s rules (a phase missing, repeated or out of order, a bad time, overlaps);
    /// orders that differ between files; a phase that holds no frame; a phase ending after the video does (up to
    /// half a frame past its last frame is its end); a frame rate that is not a positive number.
    public init(inputs: [Input]) throws(PhaseError) {
        guard inputs.count >= 2, inputs.count <= Self.maximumInputs else {
            throw PhaseError(
                .invalidOrder, path: inputs.first?.source ?? "sync", reason: "sync takes 2 to \(Self.maximumInputs) videos, not \(inputs.count)")
        }
        let order = inputs[0].timeline.order
        for input in inputs {
            try Self.check(input, against: order, firstSource: inputs[0].source)
        }
        let outputRate = inputs[0].framesPerSecond
        // Per input: the first and end frame of every phase, then the output frames each phase takes.
        var segmentsByInput: [[Segment]] = []
        for input in inputs {
            let rate = input.framesPerSecond
            let bounds = try input.timeline.phases.map { phase throws(PhaseError) -> (Int, Int) in
                let first = Self.frame(at: phase.start, rate: rate)
                var end = Self.frame(at: phase.end, rate: rate)
                let lastTime = Double(input.frameCount) / rate
                if end > input.frameCount {
                    // An end up to half a frame past the last frame is the video's end written by hand.
                    guard phase.end <= lastTime + 0.5 / rate else {
                        throw PhaseError(
                            .beyondVideo, path: input.source,
                            reason: "phase \(Self.quoted(phase.label)) ends at \(Self.seconds(phase.end)), "
                                + "after the end of the video (\(Self.seconds(lastTime)))")
                    }
                    end = input.frameCount
                }
                guard end > first else {
                    throw PhaseError(
                        .videoTooShort, path: input.source,
                        reason: "phase \(Self.quoted(phase.label)) (\(Self.seconds(phase.start)) to "
                            + "\(Self.seconds(phase.end))) holds no frame of the video at \(Self.rate(rate)) frames per second")
                }
                return (first, end)
            }
            let origin = bounds[0].0
            let sameRate = abs(rate - outputRate) <= 1e-9 * outputRate
            func outputFrames(_ frame: Int) -> Int {
                sameRate ? frame - origin : Int((Double(frame - origin) * outputRate / rate).rounded())
            }
            segmentsByInput.append(
                bounds.map { first, end in
                    Segment(
                        firstFrame: first, frameCount: end - first,
                        outputFrameCount: max(1, outputFrames(end) - outputFrames(first)), holdFrameCount: 0)
                })
        }
        var phases: [Phase] = []
        var outputFirstFrame = 0
        for (index, label) in order.enumerated() {
            let length = segmentsByInput.map { $0[index].outputFrameCount }.max() ?? 0
            let segments = segmentsByInput.map { segments in
                var segment = segments[index]
                segment.holdFrameCount = length - segment.outputFrameCount
                return segment
            }
            phases.append(Phase(label: label, outputFirstFrame: outputFirstFrame, outputFrameCount: length, segments: segments))
            outputFirstFrame += length
        }
        self.order = order
        self.framesPerSecond = outputRate
        self.inputFramesPerSecond = inputs.map(\.framesPerSecond)
        self.phases = phases
    }

    /// The first frame shown at or after `seconds` at `rate` frames per second (frame k is shown from k / rate on).
    /// A thousandth of a frame of slack keeps a time written as a frame's own (0.04 at 25 fps) on that frame.
    public static func frame(at seconds: Double, rate: Double) -> Int {
        WholeNumber.clamped(seconds * rate - 1e-3, .up, to: 0...Int.max) ?? 0
    }

    /// Checks one input's timeline and rate: the timeline's own rules (`PhaseTimeline.validate`), and an order
    /// equal to the first file's.
    private static func check(_ input: Input, against order: [String], firstSource: String) throws(PhaseError) {
        guard input.framesPerSecond.isFinite, input.framesPerSecond > 0 else {
            throw PhaseError(.beyondVideo, path: input.source, reason: "the video states no frame rate")
        }
        try input.timeline.validate(path: input.source)
        guard input.timeline.order == order else {
            throw PhaseError(
                .invalidOrder, path: input.source,
                reason: "its order (\(list(input.timeline.order))) differs from "
                    + "\(firstSource)'s (\(list(order))): every video needs the same phases in the same order")
        }
    }

    private static func quoted(_ label: String) -> String { DisplayText.quoted(label) }
    private static func list(_ labels: [String]) -> String { labels.joined(separator: ",") }
    private static func seconds(_ value: Double) -> String { DisplayText.thousandths(value) + " s" }
    private static func rate(_ value: Double) -> String { DisplayText.thousandths(value) }
}
