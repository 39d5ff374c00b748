import ExternalProcesses
import Foundation
import ImageCodecs

/// Frames from a video file, decoded by ffmpeg and streamed through a pipe.
///
/// ffmpeg samples one frame every `every` seconds (`fps` filter), converts it to RGB24 at the source size (the
/// conversion `ffmpeg -vf fps=1 frame%d.png` does), cuts out the pixels the crop needs (`RawFrameDecoding`: an
/// exact integer rectangle, no resampling) and writes them to stdout. Workbench's own decoding then shrinks, crops
/// and resizes them exactly as it does a PNG file, so a video frame and the same frame saved losslessly give the
/// same network input. One crop-sized buffer is read at a time and each frame leaves as the small decoded square, so
/// memory stays flat however long or large the movie is, and nothing touches the disk.
///
/// Sample `n` (0-based) is the picture on screen at exactly `n · every` seconds from the start of the video: the
/// last frame whose time is at or before it. The `fps` filter does this with `start_time=0` (its slots are
/// counted from the video's start, not from its first frame, which may come later) and `round=up` (a frame at
/// 4.12 s belongs to the slot at 5 s, not 4 s; the default, nearest, would also drop a frame at 8.0 s followed by
/// one at 8.4 s). A slide show or a variable-frame-rate video thus gives the same samples as a constant-rate one.
///
/// The file is probed with ffprobe when the source is made (so "not a video" fails before any work starts);
/// ffmpeg starts on the first `nextFrame()`. Closing early, or dropping the source, terminates ffmpeg.
public final class VideoFrameSource: FrameSource {
    /// A stretch of the video: `frameCount` samples starting with sample number `firstIndex` (at
    /// `firstIndex · every` seconds), or every sample from there to the end when `runsToEnd`.
    ///
    /// ffmpeg seeks there itself: `-ss` before `-i` jumps to the keyframe at or before that time, and
    /// `-noaccurate_seek` keeps the frames decoded between the keyframe and the time, because the picture on screen
    /// at the segment's first sample is usually one of them (in a slide show, always). Timestamps stay relative to
    /// the seek time, so the `fps` filter's slot 0 is exactly the segment's first sample and the frames before it
    /// only compete for that slot. Several segments can thus be decoded by several ffmpeg processes at once and
    /// give what one decoder gives.
    public struct Segment: Sendable, Equatable {
        /// The number of the segment's first sample.
        public var firstIndex: Int
        /// How many samples it holds (for the last segment, how many are expected).
        public var frameCount: Int
        /// Whether decoding goes on to the end of the video rather than stopping after `frameCount` samples:
        /// true for the last segment, so a video that runs past its probed duration loses nothing.
        public var runsToEnd: Bool
        /// Makes a segment.
        public init(firstIndex: Int, frameCount: Int, runsToEnd: Bool = false) {
            self.firstIndex = firstIndex
            self.frameCount = frameCount
            self.runsToEnd = runsToEnd
        }
    }

    /// The video file.
    public let path: String
    /// Seconds between sampled frames.
    public let every: Double
    /// What ffprobe reported.
    public let probe: VideoProbe
    /// The stretch this source decodes; nil is the whole video.
    public let segment: Segment?
    /// The frames ffmpeg may leave undecoded; nil decodes every frame (see `FrameSkipping.choose(path:every:probe:tools:)`).
    public let skipping: FrameSkipping?
    /// How a frame's pixels become the picture handed on (the preprocessing's crop and resize).
    public let decoding: RawFrameDecoding
    private let tools: ExternalTools
    private var running: ToolRunner.Running?
    private var nextIndex: Int
    private var finished = false
    /// The raw pixels of one frame's rectangle, reused from frame to frame.
    private var buffer: [UInt8] = []

    /// Probes `path` and prepares to decode one frame every `every` seconds.
    ///
    /// `every` must be within `SamplingLimits` and not faster than the video's frame rate (`.invalidArgument`).
    /// `tools` defaults to ffmpeg/ffprobe found on PATH. Frames are decoded with `options`, as image files are.
    public convenience init(path: String, every: Double = 1, options: DecodeOptions, tools: ExternalTools? = nil) throws(VideoError) {
        try SamplingLimits.check(every: every, path: path)
        let resolvedTools: ExternalTools
        if let tools { resolvedTools = tools } else { resolvedTools = try ExternalTools.locate(for: path) }
        let probe = try VideoProbe.probe(path: path, tools: resolvedTools)
        try SamplingLimits.check(every: every, video: probe, path: path)
        self.init(
            path: path, every: every, probe: probe, decoding: try Self.decoding(probe: probe, options: options, path: path),
            tools: resolvedTools, segment: nil, skipping: FrameSkipping.choose(path: path, every: every, probe: probe, tools: resolvedTools))
    }

    /// The decoding plan for the video's upright frames; a frame size over the options' limits is refused.
    static func decoding(probe: VideoProbe, options: DecodeOptions, path: String) throws(VideoError) -> RawFrameDecoding {
        let size = probe.uprightSize
        do {
            return try RawFrameDecoding(width: size.width, height: size.height, options: options, path: path)
        } catch {
            throw VideoError(.invalidArgument, path: path, reason: error.reason)
        }
    }

    /// A source over an already probed video, optionally one segment of it.
    init(
        path: String, every: Double, probe: VideoProbe, decoding: RawFrameDecoding, tools: ExternalTools, segment: Segment?,
        skipping: FrameSkipping?
    ) {
        self.path = path
        self.decoding = decoding
        self.every = every
        self.probe = probe
        self.tools = tools
        self.segment = segment
        self.skipping = skipping
        nextIndex = segment?.firstIndex ?? 0
    }

    deinit { close() }

    /// Estimated from the probed duration: the `fps` filter emits one frame per `every` seconds.
    public var expectedFrameCount: Int? {
        if let segment { return segment.frameCount }
        return SamplingLimits.plannedSamples(duration: probe.duration, every: every)
    }

    /// The arguments ffmpeg runs with (exposed for tests and diagnostics).
    public var ffmpegArguments: [String] {
        // The size is pinned to the probed one (a no-op scale), so a stream that changes size mid-way cannot shift
        // the rectangle; the crop is an exact copy of RGB pixels, after the conversion a PNG extraction does too.
        let rectangle = decoding.rectangle
        let filters = [
            "fps=fps=\(1 / every):start_time=0:round=up",
            "format=rgb24",
            "scale=\(decoding.width):\(decoding.height)",
            "crop=\(rectangle.width):\(rectangle.height):\(rectangle.left):\(rectangle.top):exact=1",
        ].joined(separator: ",")
        // Frames no sample needs are left undecoded (see FrameSkipping): a third or more of the work.
        let skipping = self.skipping.map { ["-skip_frame", $0.rawValue] } ?? []
        // Segments run side by side, one per core: each decoder and its scaler keep to one thread.
        // Microseconds are what ffmpeg keeps of -ss; "%.6f" never writes an exponent, which -ss would not parse.
        let seeking =
            segment.map {
                ["-threads", "1", "-filter_threads", "1", "-noaccurate_seek", "-ss", String(format: "%.6f", Double($0.firstIndex) * every)]
            } ?? []
        let limit = segment.flatMap { $0.runsToEnd ? nil : ["-frames:v", "\($0.frameCount)"] } ?? []
        return ["-nostdin", "-hide_banner", "-loglevel", "error"] + skipping + seeking + [
            "-i", MediaPath.url(path),
            "-map", "0:v:0", "-an", "-sn", "-dn", "-vf", filters,
        ] + limit
            + ["-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"]
    }

    /// The next frame, decoded as an image file is (the network's square input), or nil at the end of the video.
    public func nextFrame() throws(VideoError) -> Frame? {
        if finished { return nil }
        if let segment, !segment.runsToEnd, nextIndex >= segment.firstIndex + segment.frameCount {
            close()
            return nil
        }
        if running == nil {
            _ = try MediaPath.input(path)
            running = try ToolRunner.start(tools.ffmpeg, ffmpegArguments, subject: path)
        }
        guard let running else { return nil }
        let frameBytes = decoding.rectangle.byteCount
        if buffer.count != frameBytes { buffer = [UInt8](repeating: 0, count: frameBytes) }
        var filled = 0
        while filled < frameBytes {
            let count: Int
            do throws(VideoError) {
                count = try ToolRunner.read(running, into: &buffer, from: filled)
            } catch {
                finish()
                throw error
            }
            if count == 0 { break }
            filled += count
        }
        if filled == frameBytes {
            let image = buffer.withUnsafeBytes { decoding.decode($0) }
            let frame = Frame(index: nextIndex, second: Double(nextIndex) * every, image: image, isNetworkInput: true)
            nextIndex += 1
            return frame
        }
        // End of stream: ffmpeg finished or died; its exit status decides which.
        let status = running.wait()
        let lastLine = running.errorTail.lastLine()
        finish()
        let detail = lastLine.isEmpty ? "" : ": \(lastLine)"
        if running.process.terminationReason == .uncaughtSignal || status != 0 {
            throw VideoError(.toolFailed, path: path, reason: "ffmpeg failed (exit status \(status))\(detail)")
        }
        if filled != 0 {
            throw VideoError(.toolFailed, path: path, reason: "ffmpeg output ended in the middle of a frame\(detail)")
        }
        return nil
    }

    /// Stops decoding; terminates ffmpeg if it is still running. Safe to call more than once.
    public func close() {
        if let running {
            // Closing our end first makes a blocked ffmpeg fail its write at once instead of waiting for a signal.
            try? running.output.close()
            running.stop()
        }
        running = nil
        finished = true
    }

    private func finish() {
        if let running { try? running.output.close() }
        running = nil
        finished = true
    }
}
