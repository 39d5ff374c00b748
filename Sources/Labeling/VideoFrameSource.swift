import Foundation
import ImageCodecs

/// Frames from a video file, decoded by ffmpeg and streamed through a pipe.
///
/// ffmpeg samples one frame every `every` seconds (`fps` filter), centre-crops it with the network's crop rule
/// (`CropExpression`), scales it straight to 224×224 (bicubic) and writes raw RGB24 to stdout. We read fixed
/// 224·224·3-byte chunks, so memory stays flat however long the movie is and nothing touches the disk. Frame `n`
/// (0-based) is at `n · every` seconds, which is where the `fps` filter puts it.
///
/// The file is probed with ffprobe when the source is made (so "not a video" fails before any work starts);
/// ffmpeg starts on the first `nextFrame()`. Closing early, or dropping the source, terminates ffmpeg.
public final class VideoFrameSource: FrameSource {
    /// A stretch of the video: `frameCount` samples starting with sample number `firstIndex` (at
    /// `firstIndex · every` seconds). ffmpeg seeks there itself (`-ss` before `-i`: to the keyframe before, then
    /// decoding forward), so several segments can be decoded by several ffmpeg processes at once.
    public struct Segment: Sendable, Equatable {
        public var firstIndex: Int
        public var frameCount: Int
        public init(firstIndex: Int, frameCount: Int) {
            self.firstIndex = firstIndex
            self.frameCount = frameCount
        }
    }

    /// Side of the square frames produced (the network's input size).
    public static let side = 224
    private static let frameBytes = side * side * 3

    /// The video file.
    public let path: String
    /// Seconds between sampled frames.
    public let every: Double
    /// What ffprobe reported.
    public let probe: VideoProbe
    /// The stretch this source decodes; nil is the whole video.
    public let segment: Segment?
    /// The frames ffmpeg may leave undecoded; nil decodes every frame (see `FrameSkipping.choose(path:every:)`).
    public let skipping: FrameSkipping?
    private let tools: ExternalTools
    private var running: (process: Process, output: FileHandle, errorTail: StandardErrorTail)?
    private var nextIndex: Int
    private var finished = false

    /// Probes `path` and prepares to decode one frame every `every` seconds (must be positive).
    ///
    /// `tools` defaults to ffmpeg/ffprobe found on PATH.
    public convenience init(path: String, every: Double = 1, tools: ExternalTools? = nil) throws(LabelingError) {
        guard every.isFinite, every > 0 else {
            throw LabelingError(.invalidArgument, path: path, reason: "frame interval must be a positive number of seconds, got \(every)")
        }
        let resolvedTools: ExternalTools
        if let tools { resolvedTools = tools } else { resolvedTools = try ExternalTools.locate(for: path) }
        self.init(path: path, every: every, probe: try VideoProbe.probe(path: path, tools: resolvedTools),
                  tools: resolvedTools, segment: nil, skipping: FrameSkipping.choose(path: path, every: every))
    }

    /// A source over an already probed video, optionally one segment of it.
    init(path: String, every: Double, probe: VideoProbe, tools: ExternalTools, segment: Segment?, skipping: FrameSkipping?) {
        self.path = path
        self.every = every
        self.probe = probe
        self.tools = tools
        self.segment = segment
        self.skipping = skipping
        nextIndex = segment?.firstIndex ?? 0
    }

    deinit { close() }

    /// Estimated from the probed duration: the `fps` filter emits about one frame per `every` seconds.
    public var expectedFrameCount: Int? {
        if let segment { return segment.frameCount }
        guard let duration = probe.duration else { return nil }
        return max(1, Int((duration / every).rounded(.up)))
    }

    /// The arguments ffmpeg runs with (exposed for tests and diagnostics).
    public var ffmpegArguments: [String] {
        let filters = [
            "fps=fps=\(1 / every)",
            CropExpression.filter,
            "scale=\(Self.side):\(Self.side):flags=bicubic",
            "format=rgb24",
        ].joined(separator: ",")
        // Frames no sample needs are left undecoded (see FrameSkipping): a third or more of the work.
        let skipping = self.skipping.map { ["-skip_frame", $0.rawValue] } ?? []
        // Segments run side by side, one per core: each decoder and its scaler keep to one thread.
        let seeking = segment.map { ["-threads", "1", "-filter_threads", "1", "-ss", "\(Double($0.firstIndex) * every)"] } ?? []
        let limit = segment.map { ["-frames:v", "\($0.frameCount)"] } ?? []
        return ["-nostdin", "-hide_banner", "-loglevel", "error"] + skipping + seeking + ["-i", path,
                "-map", "0:v:0", "-an", "-sn", "-dn", "-vf", filters] + limit
                + ["-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"]
    }

    /// The next 224×224 frame, or nil at the end of the video.
    public func nextFrame() throws(LabelingError) -> Frame? {
        if finished { return nil }
        if let segment, nextIndex >= segment.firstIndex + segment.frameCount {
            close()
            return nil
        }
        if running == nil {
            running = try ToolRunner.start(tools.ffmpeg, ffmpegArguments, subject: path)
        }
        guard let (process, output, errorTail) = running else { return nil }
        var pixels = [UInt8](repeating: 0, count: Self.frameBytes)
        var filled = 0
        while filled < Self.frameBytes {
            let count = pixels.withUnsafeMutableBytes { buffer in
                read(output.fileDescriptor, buffer.baseAddress! + filled, Self.frameBytes - filled)
            }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            filled += count
        }
        if filled == Self.frameBytes {
            let frame = Frame(index: nextIndex, second: Double(nextIndex) * every,
                              image: RGBImage(width: Self.side, height: Self.side, pixels: pixels),
                              isNetworkInput: true)
            nextIndex += 1
            return frame
        }
        // End of stream: ffmpeg finished or died; its exit status decides which.
        process.waitUntilExit()
        let lastLine = errorTail.lastLine()
        finish()
        let detail = lastLine.isEmpty ? "" : ": \(lastLine)"
        if process.terminationReason == .uncaughtSignal || process.terminationStatus != 0 {
            throw LabelingError(.toolFailed, path: path,
                                reason: "ffmpeg failed (exit status \(process.terminationStatus))\(detail)")
        }
        if filled != 0 {
            throw LabelingError(.toolFailed, path: path, reason: "ffmpeg output ended in the middle of a frame\(detail)")
        }
        return nil
    }

    /// Stops decoding; terminates ffmpeg if it is still running. Safe to call more than once.
    public func close() {
        if let (process, output, _) = running {
            // Closing our end first makes a blocked ffmpeg fail its write at once instead of waiting for a signal.
            try? output.close()
            ToolRunner.stop(process)
        }
        running = nil
        finished = true
    }

    private func finish() {
        if let (_, output, _) = running { try? output.close() }
        running = nil
        finished = true
    }
}
