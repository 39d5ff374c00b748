import Foundation

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
    /// The frames the decoders may skip; nil decodes every frame (see `FrameSkipping.choose(path:every:)`).
    public let skipping: FrameSkipping?
    private let tools: ExternalTools
    private let parallelism: Int
    private let maximumSegmentFrames: Int
    private var inFlight: [PrefetchingFrameSource] = []
    private var nextSegment = 0

    /// Probes `path` and plans segments of at most `maximumSegmentFrames` samples (each one's read-ahead) over its
    /// probed duration. A video whose duration is unknown is one segment.
    public init(path: String, every: Double = 1, maximumSegmentFrames: Int = 300, parallelism: Int = 2,
                tools: ExternalTools? = nil) throws(LabelingError) {
        guard every.isFinite, every > 0 else {
            throw LabelingError(.invalidArgument, path: path, reason: "frame interval must be a positive number of seconds, got \(every)")
        }
        let resolvedTools: ExternalTools
        if let tools { resolvedTools = tools } else { resolvedTools = try ExternalTools.locate(for: path) }
        self.path = path
        self.every = every
        self.tools = resolvedTools
        self.parallelism = max(1, parallelism)
        self.maximumSegmentFrames = max(1, maximumSegmentFrames)
        probe = try VideoProbe.probe(path: path, tools: resolvedTools)
        skipping = FrameSkipping.choose(path: path, every: every)
        if let duration = probe.duration, duration > 0 {
            let total = max(1, Int((duration / every).rounded(.up)))
            segments = Self.plan(total: total, maximumSegmentFrames: self.maximumSegmentFrames, parallelism: self.parallelism)
        } else {
            segments = [VideoFrameSource.Segment(firstIndex: 0, frameCount: Int.max / 2)]
        }
    }

    deinit { close() }

    /// Splits `total` samples into equal segments of at most `maximumSegmentFrames`, their number a multiple of
    /// `parallelism` (fewer only when there are fewer samples than decoders).
    public static func plan(total: Int, maximumSegmentFrames: Int, parallelism: Int) -> [VideoFrameSource.Segment] {
        precondition(total > 0 && maximumSegmentFrames > 0 && parallelism > 0)
        let rounds = (total + parallelism * maximumSegmentFrames - 1) / (parallelism * maximumSegmentFrames)
        let perSegment = (total + rounds * parallelism - 1) / (rounds * parallelism)
        return stride(from: 0, to: total, by: perSegment).map {
            VideoFrameSource.Segment(firstIndex: $0, frameCount: min(perSegment, total - $0))
        }
    }

    public var expectedFrameCount: Int? { segments.reduce(0) { $0 + $1.frameCount } }

    public func nextFrame() throws(LabelingError) -> Frame? {
        while true {
            fill()
            guard let current = inFlight.first else { return nil }
            if let frame = try current.nextFrame() { return frame }
            current.close()
            inFlight.removeFirst()
        }
    }

    public func close() {
        for source in inFlight { source.close() }
        inFlight.removeAll()
        nextSegment = segments.count
    }

    /// Starts segments until `parallelism` are decoding.
    private func fill() {
        while inFlight.count < parallelism && nextSegment < segments.count {
            let segment = segments[nextSegment]
            nextSegment += 1
            let source = PrefetchingFrameSource(
                VideoFrameSource(path: path, every: every, probe: probe, tools: tools, segment: segment, skipping: skipping),
                depth: min(segment.frameCount, maximumSegmentFrames))
            source.start()
            inFlight.append(source)
        }
    }
}
