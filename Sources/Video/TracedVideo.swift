import FileFormats
import Foundation
import ImageCodecs

/// A video with pictures drawn by Workbench laid over it (`workbench trace`): ffmpeg composites a sequence of
/// transparent pictures, one per video frame from a given frame on, the last kept to the end.
///
/// The pictures are written as PNG (straight alpha) into a temporary folder and read back by ffmpeg's image
/// sequence demuxer at the video's own rate; `setpts` puts picture i at frame `firstFrame + i`'s time, `overlay`
/// places it at (x, y) and repeats the last picture once the sequence ends (`eof_action=repeat`). Frames before
/// `firstFrame` pass through untouched. Output: H.264 (libx264 at `encoderPreset`, CRF 18, so thin lines stay
/// sharp; MPEG-4 Part 2 without libx264), the video's own frame rate, its sound re-encoded as AAC when it has some.
public enum TracedVideo {
    /// The x264 preset of the output.
    public static let encoderPreset = "veryfast"

    /// The pictures to lay over the video.
    public struct OverlaySequence: Sendable {
        /// Where the pictures go: their top-left corner and their size, in the video's pixels.
        public var x: Int, y: Int, width: Int, height: Int
        /// The video frame picture 0 belongs to.
        public var firstFrame: Int
        /// How many pictures there are.
        public var count: Int
        /// The video's frame rate (frame k is at k / rate seconds).
        public var framesPerSecond: Double
        /// Picture i as straight RGBA bytes, `width × height × 4`.
        public var picture: @Sendable (Int) -> [UInt8]

        /// A sequence from its parts.
        public init(
            x: Int, y: Int, width: Int, height: Int, firstFrame: Int, count: Int, framesPerSecond: Double,
            picture: @escaping @Sendable (Int) -> [UInt8]
        ) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
            self.firstFrame = firstFrame
            self.count = count
            self.framesPerSecond = framesPerSecond
            self.picture = picture
        }
    }

    /// Writes `video` with `overlay` composited to `output` (a `RenderTarget`: temporary file and rename, or written
    /// through to a device). `progress` gets the fraction of the work done: the pictures first, then encoding.
    public static func render(
        video: String, probe: VideoProbe, frameCount: Int, overlay: OverlaySequence, to output: String,
        tools: ExternalTools, progress: ((Double) -> Void)? = nil
    ) throws(VideoError) {
        guard overlay.count > 0, overlay.width > 0, overlay.height > 0 else {
            throw VideoError(.invalidArgument, path: output, reason: "nothing to draw")
        }
        let target = try RenderTarget(output: output)
        let encoder = try HighlightReel.videoEncoder(tools: tools, subject: output)
        let workFolder = try TemporaryFolder.forRender(prefix: "workbench-trace")
        defer { workFolder.remove() }
        for index in 0..<overlay.count {
            let path = workFolder.file(String(format: "overlay-%06d.png", index))
            let bytes: [UInt8]
            do {
                bytes = try PNGEncoder.encode(rgba: overlay.picture(index), width: overlay.width, height: overlay.height, name: path)
            } catch {
                throw VideoError(.writeFailed, path: path, reason: error.reason)
            }
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                throw VideoError(.writeFailed, path: path, reason: "cannot write an overlay picture")
            }
            progress?(0.2 * Double(index + 1) / Double(overlay.count))
        }
        let rate = SideBySideVideo.rateText(overlay.framesPerSecond)
        let input = try MediaPath.input(video)
        var arguments = [
            "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-progress", "pipe:1", "-nostats",
            "-i", input,
            // Relative to the work folder ffmpeg runs in: no character of TMPDIR reaches the sequence pattern.
            "-framerate", rate, "-start_number", "0", "-f", "image2", "-pattern_type", "sequence", "-i", "overlay-%06d.png",
            "-filter_complex", filterGraph(overlay: overlay), "-map", "[video]", "-c:v", encoder,
        ]
        arguments += encoder == "libx264" ? ["-preset", encoderPreset, "-crf", "18"] : ["-q:v", "2"]
        arguments += probe.hasAudio ? ["-map", "0:a:0", "-c:a", "aac", "-b:a", "128k"] : []
        arguments += target.arguments
        try FFmpegRun.run(
            tools: tools, arguments: arguments, subject: video, workingDirectory: workFolder.path, target: target,
            outputFrames: frameCount,
            what: "draw over the video"
        ) { fraction in progress?(0.2 + 0.8 * fraction) }
    }

    /// The filter graph (exposed for tests): the video from time 0, picture i at frame `firstFrame + i`'s time.
    static func filterGraph(overlay: OverlaySequence) -> String {
        let rate = SideBySideVideo.rateText(overlay.framesPerSecond)
        return "[0:v:0]setpts=PTS-STARTPTS[main];[1:v:0]setpts=(N+\(overlay.firstFrame))/(\(rate)*TB)[pictures];"
            + "[main][pictures]overlay=x=\(overlay.x):y=\(overlay.y):eof_action=repeat:format=auto,format=yuv420p[video]"
    }
}
