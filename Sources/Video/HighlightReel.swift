import ExternalProcesses
import FileFormats
import Foundation
import ImageCodecs

/// A piece of a video to put in a highlights reel.
public struct Clip: Sendable, Equatable {
    /// The video file.
    public let video: String
    /// Start in seconds.
    public let start: Double
    /// End in seconds (exclusive).
    public let end: Double

    /// Makes a clip.
    public init(video: String, start: Double, end: Double) {
        self.video = video
        self.start = start
        self.end = end
    }
}

/// The shape every segment is re-encoded to, so segments from different videos can be joined.
public struct HighlightFormat: Sendable, Equatable {
    /// The reel's width and height in pixels (even numbers); nil takes the largest clip video's
    /// (`HighlightReel.defaultSize`). A clip larger than the reel is scaled down to fit, one smaller is never
    /// scaled up; either is centred on black.
    public var size: ImageSize?
    /// Output frame rate.
    public var framesPerSecond: Int

    /// A format of `size` (nil: the largest input's) at `framesPerSecond`, 30 by default.
    public init(size: ImageSize? = nil, framesPerSecond: Int = 30) {
        self.size = size
        self.framesPerSecond = framesPerSecond
    }

    /// A format `width × height` at `framesPerSecond`.
    public init(width: Int, height: Int, framesPerSecond: Int = 30) {
        self.init(size: ImageSize(width: width, height: height), framesPerSecond: framesPerSecond)
    }

    /// The sizes a reel may be given: 16 to 8192 pixels a side, even (H.264's 4:2:0 pictures need even sides).
    public static let sides = 16...8192

    /// Whether `size` is one a reel may be given (`sides`, even).
    public static func isValid(_ size: ImageSize) -> Bool {
        [size.width, size.height].allSatisfy { sides.contains($0) && $0 % 2 == 0 }
    }
}

/// Cuts clips out of videos and joins them into one reel with ffmpeg.
public enum HighlightReel {
    /// Cuts each clip, re-encodes it to `format` (H.264 with libx264 when ffmpeg has it, MPEG-4 Part 2 otherwise;
    /// AAC stereo sound, silence for clips without audio) in a temporary folder, joins the segments with the concat
    /// demuxer into a temporary file beside `output`, and renames it over `output`. The temporary folder is removed
    /// afterwards, also on failure. `progress` gets (segments done, total). Returns the reel's size: `format`'s, or
    /// without one the largest clip video's (`defaultSize`).
    @discardableResult
    public static func render(
        clips: [Clip], to output: String, format: HighlightFormat = HighlightFormat(),
        tools: ExternalTools? = nil,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(VideoError) -> ImageSize {
        guard !clips.isEmpty else {
            throw VideoError(.invalidArgument, path: output, reason: "no clips to put in the highlights")
        }
        try VideoContainer.check(output: output)
        let resolvedTools: ExternalTools
        if let tools { resolvedTools = tools } else { resolvedTools = try ExternalTools.locate(for: output) }
        let outputURL = URL(fileURLWithPath: output)
        let folder = outputURL.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw VideoError(.writeFailed, path: output, reason: "folder \(folder) does not exist")
        }
        let encoder = try videoEncoder(tools: resolvedTools, subject: output)
        let workFolder = try TemporaryFolder.forRender(prefix: "workbench-highlights")
        defer { workFolder.remove() }
        var probes: [VideoProbe] = []
        for clip in clips { probes.append(try VideoProbe.probe(path: clip.video, tools: resolvedTools)) }
        let size = format.size ?? defaultSize(probes.map { ImageSize(width: $0.uprightSize.width, height: $0.uprightSize.height) })
        guard HighlightFormat.isValid(size) else {
            throw VideoError(
                .invalidArgument, path: output,
                reason: "a reel of \(size.width) × \(size.height) pixels: each side must be even, "
                    + "from \(HighlightFormat.sides.lowerBound) to \(HighlightFormat.sides.upperBound)")
        }
        var list = ""
        for (number, (clip, probe)) in zip(clips, probes).enumerated() {
            // Named relative to the work folder ffmpeg runs in (and the list is in): TMPDIR's characters never matter.
            let segment = "segment-\(number).mkv"
            try run(
                resolvedTools.ffmpeg,
                segmentArguments(
                    clip: clip, hasAudio: probe.hasAudio, size: size,
                    framesPerSecond: format.framesPerSecond,
                    encoder: encoder, segment: segment), subject: clip.video, in: workFolder)
            list += "file '\(segment)'\n"
            progress?(number + 1, clips.count)
        }
        let listPath = workFolder.file("segments.txt")
        guard FileManager.default.createFile(atPath: listPath, contents: Data(list.utf8)) else {
            throw VideoError(.writeFailed, path: listPath, reason: "cannot write the segment list")
        }
        let target = try RenderTarget(partialBeside: output, defaultEnding: "mp4")
        do {
            try run(
                resolvedTools.ffmpeg,
                [
                    "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-progress", "pipe:1", "-nostats",
                    "-f", "concat", "-i", "file:segments.txt", "-c", "copy", MediaPath.url(target.writtenPath),
                ],
                subject: output, in: workFolder)
        } catch {
            target.abandon()
            throw error
        }
        try target.finish()
        return size
    }

    /// The reel's size when none is asked for: the largest of `sizes` (the clips' videos, upright) by pixel count,
    /// the first of equals, its sides rounded down to even numbers and kept within `HighlightFormat.sides`. So a
    /// reel of 640 × 360 clips is 640 × 360, never upscaled to a fixed size, and a smaller clip is never upscaled
    /// to fill it.
    public static func defaultSize(_ sizes: [ImageSize]) -> ImageSize {
        var largest = sizes.first ?? ImageSize(width: 1280, height: 720)
        for size in sizes.dropFirst() where size.width * size.height > largest.width * largest.height { largest = size }
        func side(_ value: Int) -> Int { min(max(value - value % 2, HighlightFormat.sides.lowerBound), HighlightFormat.sides.upperBound) }
        return ImageSize(width: side(largest.width), height: side(largest.height))
    }

    /// The ffmpeg arguments that cut and normalise one clip to `size` (exposed for tests): scaled down to fit when
    /// larger, never up, centred on black.
    static func segmentArguments(
        clip: Clip, hasAudio: Bool, size: ImageSize, framesPerSecond: Int, encoder: String,
        segment: String
    ) -> [String] {
        let duration = max(clip.end - clip.start, 0.04)
        // Fixed-point text: ffmpeg's time parser does not read exponents like "1e-05".
        let startText = String(format: "%.3f", max(clip.start, 0))
        let durationText = String(format: "%.3f", duration)
        var arguments = [
            "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-progress", "pipe:1", "-nostats",
            "-ss", startText, "-t", durationText, "-i", MediaPath.url(clip.video),
        ]
        if !hasAudio {
            arguments += ["-f", "lavfi", "-t", durationText, "-i", "anullsrc=channel_layout=stereo:sample_rate=48000"]
        }
        // min(iw, W) and min(ih, H) leave a clip that fits as it is; `decrease` keeps a larger one's shape inside
        // the reel, on even sides, as 4:2:0 needs.
        let video =
            "scale='min(iw,\(size.width))':'min(ih,\(size.height))':force_original_aspect_ratio=decrease:force_divisible_by=2,"
            + "pad=\(size.width):\(size.height):(ow-iw)/2:(oh-ih)/2,setsar=1,fps=\(framesPerSecond),format=yuv420p"
        arguments += ["-map", "0:v:0", "-map", hasAudio ? "0:a:0" : "1:a:0", "-vf", video, "-c:v", encoder]
        arguments += encoder == "libx264" ? ["-preset", "veryfast", "-crf", "20"] : ["-q:v", "3"]
        arguments += ["-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2", "-shortest", "file:" + segment]
        return arguments
    }

    /// "libx264" when this ffmpeg was built with it, else "mpeg4" (always built in).
    static func videoEncoder(tools: ExternalTools, subject: String) throws(VideoError) -> String {
        let result = try ToolRunner.run(tools.ffmpeg, ["-hide_banner", "-encoders"], subject: subject, deadline: ToolRunner.question)
        let text = String(decoding: result.output, as: UTF8.self)
        let hasX264 = text.split(separator: "\n").contains { line in
            line.split(separator: " ").dropFirst().first == "libx264"
        }
        return hasX264 ? "libx264" : "mpeg4"
    }

    /// Runs one ffmpeg in `folder`; its `-progress` lines keep it within `ToolRunner.work`.
    private static func run(_ executable: String, _ arguments: [String], subject: String, in folder: TemporaryFolder) throws(VideoError) {
        let result = try ToolRunner.run(executable, arguments, subject: subject, workingDirectory: folder.path, deadline: ToolRunner.work)
        guard result.status == 0 else {
            let detail = result.lastErrorLine.isEmpty ? "" : ": \(result.lastErrorLine)"
            throw VideoError(.toolFailed, path: subject, reason: "ffmpeg failed (exit status \(result.status))\(detail)")
        }
    }
}
