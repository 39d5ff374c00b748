import ExternalProcesses
import FileFormats
import Foundation

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
    /// Output width in pixels (each clip is scaled to fit and letter-boxed).
    public var width: Int
    /// Output height in pixels.
    public var height: Int
    /// Output frame rate.
    public var framesPerSecond: Int

    /// Makes a format; the default is 1280×720 at 30 frames per second.
    public init(width: Int = 1280, height: Int = 720, framesPerSecond: Int = 30) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
    }
}

/// Cuts clips out of videos and joins them into one reel with ffmpeg.
public enum HighlightReel {
    /// Cuts each clip, re-encodes it to `format` (H.264 with libx264 when ffmpeg has it, MPEG-4 Part 2 otherwise;
    /// AAC stereo sound, silence for clips without audio) in a temporary folder, joins the segments with the concat
    /// demuxer into a temporary file beside `output`, and renames it over `output`. The temporary folder is removed
    /// afterwards, also on failure. `progress` gets (segments done, total).
    public static func render(clips: [Clip], to output: String, format: HighlightFormat = HighlightFormat(),
                              tools: ExternalTools? = nil,
                              progress: ((Int, Int) -> Void)? = nil) throws(VideoError) {
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
        let workFolder = FileManager.default.temporaryDirectory
            .appendingPathComponent("workbench-highlights-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(atPath: workFolder, withIntermediateDirectories: true)
        } catch {
            throw VideoError(.writeFailed, path: workFolder, reason: "cannot create temporary folder: \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(atPath: workFolder) }

        var list = ""
        for (number, clip) in clips.enumerated() {
            let probe = try VideoProbe.probe(path: clip.video, tools: resolvedTools)
            let segment = workFolder + "/segment-\(number).mkv"
            try run(resolvedTools.ffmpeg, segmentArguments(clip: clip, hasAudio: probe.hasAudio, format: format,
                                                           encoder: encoder, segment: segment), subject: clip.video)
            // The concat list quotes paths (a single quote inside one is written as '\''); its entries are URLs too.
            list += "file '\(MediaPath.url(segment).replacingOccurrences(of: "'", with: "'\\''"))'\n"
            progress?(number + 1, clips.count)
        }
        let listPath = workFolder + "/segments.txt"
        guard FileManager.default.createFile(atPath: listPath, contents: Data(list.utf8)) else {
            throw VideoError(.writeFailed, path: listPath, reason: "cannot write the segment list")
        }
        let partial = TemporaryFileName.beside(outputURL.lastPathComponent, in: folder,
                                               ending: outputURL.pathExtension.isEmpty ? "mp4" : outputURL.pathExtension)
        do {
            try run(resolvedTools.ffmpeg, ["-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                                           "-f", "concat", "-safe", "0", "-i", MediaPath.url(listPath), "-c", "copy", MediaPath.url(partial)],
                    subject: output)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
        if rename(partial, output) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: partial)
            throw VideoError(.writeFailed, path: output, reason: reason)
        }
    }

    /// The ffmpeg arguments that cut and normalise one clip (exposed for tests).
    static func segmentArguments(clip: Clip, hasAudio: Bool, format: HighlightFormat, encoder: String,
                                 segment: String) -> [String] {
        let duration = max(clip.end - clip.start, 0.04)
        // Fixed-point text: ffmpeg's time parser does not read exponents like "1e-05".
        let startText = String(format: "%.3f", max(clip.start, 0))
        let durationText = String(format: "%.3f", duration)
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                         "-ss", startText, "-t", durationText, "-i", MediaPath.url(clip.video)]
        if !hasAudio {
            arguments += ["-f", "lavfi", "-t", durationText, "-i", "anullsrc=channel_layout=stereo:sample_rate=48000"]
        }
        let video = "scale=\(format.width):\(format.height):force_original_aspect_ratio=decrease,"
            + "pad=\(format.width):\(format.height):(ow-iw)/2:(oh-ih)/2,setsar=1,fps=\(format.framesPerSecond),format=yuv420p"
        arguments += ["-map", "0:v:0", "-map", hasAudio ? "0:a:0" : "1:a:0", "-vf", video, "-c:v", encoder]
        arguments += encoder == "libx264" ? ["-preset", "veryfast", "-crf", "20"] : ["-q:v", "3"]
        arguments += ["-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2", "-shortest", MediaPath.url(segment)]
        return arguments
    }

    /// "libx264" when this ffmpeg was built with it, else "mpeg4" (always built in).
    static func videoEncoder(tools: ExternalTools, subject: String) throws(VideoError) -> String {
        let result = try ToolRunner.run(tools.ffmpeg, ["-hide_banner", "-encoders"], subject: subject)
        let text = String(decoding: result.output, as: UTF8.self)
        let hasX264 = text.split(separator: "\n").contains { line in
            line.split(separator: " ").dropFirst().first == "libx264"
        }
        return hasX264 ? "libx264" : "mpeg4"
    }

    private static func run(_ executable: String, _ arguments: [String], subject: String) throws(VideoError) {
        let result = try ToolRunner.run(executable, arguments, subject: subject)
        guard result.status == 0 else {
            let detail = result.lastErrorLine.isEmpty ? "" : ": \(result.lastErrorLine)"
            throw VideoError(.toolFailed, path: subject, reason: "ffmpeg failed (exit status \(result.status))\(detail)")
        }
    }
}
