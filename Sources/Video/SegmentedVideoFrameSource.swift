import Foundation
import ImageCodecs

/// Frames from a video decoded by several ffmpeg processes at once, one segment each, delivered in order.
///
/// ffmpeg's H.264 decoder keeps barely more than one core busy however many threads it is given, and at one frame
/// a second it still has to decode every reference frame in between: on a long movie decoding, not the network,
/// sets the pace. Cutting the movie into segments (ffmpeg seeks to each one's start) lets `parallelism` decoders
/// run side by side; each segment is read ahead on its own thread, and at most `parallelism` segments are in
/// flight, so memory stays bounded by `parallelism × maximumSegmentFrames` frames.
///
/// Segments are as few and as long as that bound allows, and their number is a multiple of `parallelism`, so the
/// decoders finish together: every ffmpeg start costs about 0.1 core-seconds (Debian's ffmpeg loads some 200
/// libraries), which sixty-second segments made a tenth of the work on a ten-minute movie.
public final class SegmentedVideoFrameSource: FrameSource {
    /// The video file.
    public let path: String
    /// Seconds between sampled frames.
    public let every: Double
    /// What ffprobe reported.
    public let probe: VideoProbe
    /// The segments, in order.
    public let segments: [VideoFrameSource.Segment]
    /// The frames the decoders may skip; nil decodes every frame (see `FrameSkipping.choose(path:every:probe:tools:)`).
    public let skipping: FrameSkipping?
    /// How each frame is decoded (see `VideoFrameSource.decoding`).
    public let decoding: RawFrameDecoding
    private let tools: ExternalTools
    private let parallelism: Int
    private let maximumSegmentFrames: Int
    private var inFlight: [(source: PrefetchingFrameSource, segment: VideoFrameSource.Segment)] = []
    private var nextSegment = 0
    /// Frames the first segment in flight has delivered.
    private var delivered = 0

    /// Probes `path` and plans segments of at most `maximumSegmentFrames` samples (each one's read-ahead) over its
    /// probed duration. A video whose duration is unknown (or implausible), or whose container ffmpeg cannot seek
    /// by an index (`VideoProbe.seeksByIndex`), is one segment. `every` is checked as `VideoFrameSource` checks it.
    public init(
        path: String, every: Double = 1, options: DecodeOptions, maximumSegmentFrames: Int = 300, parallelism: Int = 2,
        tools: ExternalTools? = nil
    ) throws(VideoError) {
        try SamplingLimits.check(every: every, path: path)
        let resolvedTools: ExternalTools
        if let tools { resolvedTools = tools } else { resolvedTools = try ExternalTools.locate(for: path) }
        self.path = path
        self.every = every
        self.tools = resolvedTools
        self.parallelism = min(max(1, parallelism), Self.mostDecoders)
        self.maximumSegmentFrames = min(max(1, maximumSegmentFrames), SamplingLimits.maximumPlannedSamples)
        probe = try VideoProbe.probe(path: path, tools: resolvedTools)
        try SamplingLimits.check(every: every, video: probe, path: path)
        decoding = try VideoFrameSource.decoding(probe: probe, options: options, path: path)
        skipping = FrameSkipping.choose(path: path, every: every, probe: probe, tools: resolvedTools)
        if probe.seeksByIndex, let total = SamplingLimits.plannedSamples(duration: probe.duration, every: every) {
            segments = Self.plan(total: total, maximumSegmentFrames: self.maximumSegmentFrames, parallelism: self.parallelism)
        } else {
            let expected = SamplingLimits.plannedSamples(duration: probe.duration, every: every)
            segments = [VideoFrameSource.Segment(firstIndex: 0, frameCount: expected ?? 0, runsToEnd: true)]
        }
    }

    /// More decoders than this would only contend for the cores (each ffmpeg start also costs 0.1 core-seconds).
    static let mostDecoders = 256

    deinit { close() }

    /// Splits `total` samples into equal segments of at most `maximumSegmentFrames`, their number a multiple of
    /// `parallelism` (fewer only when there are fewer samples than decoders). The last segment runs to the end of
    /// the video. Counts below 1 count as 1, at most `mostDecoders` decoders are planned for, and at most
    /// `SamplingLimits.maximumPlannedSamples` samples (the last segment goes on past them).
    public static func plan(total: Int, maximumSegmentFrames: Int, parallelism: Int) -> [VideoFrameSource.Segment] {
        let total = min(max(1, total), SamplingLimits.maximumPlannedSamples)
        let longest = max(1, maximumSegmentFrames), decoders = min(max(1, parallelism), mostDecoders)
        // One round is `decoders` segments decoded side by side; a round too large to count covers any total.
        let (perRound, overflow) = decoders.multipliedReportingOverflow(by: longest)
        let rounds = overflow ? 1 : (total - 1) / perRound + 1
        let (segmentsWanted, tooMany) = rounds.multipliedReportingOverflow(by: decoders)
        let segmentCount = tooMany ? total : min(total, segmentsWanted)
        let perSegment = (total - 1) / segmentCount + 1
        let starts = Array(stride(from: 0, to: total, by: perSegment))
        return starts.enumerated().map { position, start in
            VideoFrameSource.Segment(
                firstIndex: start, frameCount: min(perSegment, total - start),
                runsToEnd: position == starts.count - 1)
        }
    }

    /// The planned samples; for a video of unknown length, nil.
    public var expectedFrameCount: Int? {
        let count = segments.reduce(0) { $0 + $1.frameCount }
        return count > 0 ? count : nil
    }

    public func nextFrame() throws(VideoError) -> Frame? {
        while true {
            fill()
            guard let current = inFlight.first else { return nil }
            if let frame = try current.source.nextFrame() {
                delivered += 1
                return frame
            }
            // A segment that ends short met the video's real end (its stated duration lied): the later segments
            // lie past it, and seeking into them would only decode the end again, so they are never started.
            let endedShort = !current.segment.runsToEnd && delivered < current.segment.frameCount
            current.source.close()
            inFlight.removeFirst()
            delivered = 0
            if endedShort {
                close()
                return nil
            }
        }
    }

    public func close() {
        for flight in inFlight { flight.source.close() }
        inFlight.removeAll()
        nextSegment = segments.count
    }

    /// Starts segments until `parallelism` are decoding.
    private func fill() {
        while inFlight.count < parallelism && nextSegment < segments.count {
            let segment = segments[nextSegment]
            nextSegment += 1
            let source = PrefetchingFrameSource(
                VideoFrameSource(path: path, every: every, probe: probe, decoding: decoding, tools: tools, segment: segment, skipping: skipping),
                depth: segment.frameCount > 0 ? min(segment.frameCount, maximumSegmentFrames) : maximumSegmentFrames)
            source.start()
            inFlight.append((source, segment))
        }
    }
}
