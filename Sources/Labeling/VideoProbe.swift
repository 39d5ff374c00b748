import Foundation

/// What ffprobe says about a video file: its first real video stream and its duration.
public struct VideoProbe: Sendable, Equatable {
    /// Width of the video stream in pixels (before any rotation ffmpeg applies).
    public let width: Int
    /// Height of the video stream in pixels.
    public let height: Int
    /// Duration in seconds, when the container or stream states one.
    public let duration: Double?
    /// Whether the file also has an audio stream (highlights keep the sound when there is one).
    public let hasAudio: Bool

    /// Makes a probe result.
    public init(width: Int, height: Int, duration: Double?, hasAudio: Bool) {
        self.width = width
        self.height = height
        self.duration = duration
        self.hasAudio = hasAudio
    }

    /// Runs ffprobe on `path` and checks it is a video.
    ///
    /// Errors, each "path: reason": the file is missing; ffprobe cannot read it (not a media file); it has no
    /// video stream (audio only — cover art attached to audio files does not count as video); ffprobe is missing.
    public static func probe(path: String, tools: ExternalTools) throws(LabelingError) -> VideoProbe {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw LabelingError(.fileNotFound, path: path, reason: "file not found")
        }
        guard !isDirectory.boolValue else {
            throw LabelingError(.notAVideo, path: path, reason: "is a folder, not a video file")
        }
        let result = try ToolRunner.run(
            tools.ffprobe,
            ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", "--", path],
            subject: path)
        guard result.status == 0 else {
            let detail = result.lastErrorLine.isEmpty ? "" : " (ffprobe: \(result.lastErrorLine))"
            throw LabelingError(.notAVideo, path: path, reason: "not a video file\(detail)")
        }
        guard let root = try? JSONParser.parse(result.output).objectValue else {
            throw LabelingError(.toolFailed, path: path, reason: "ffprobe printed output that is not a JSON object")
        }
        let format = root["format"]?.objectValue ?? [:]
        // ffmpeg's "tty" demuxer renders any .txt file as an ANSI-art "video"; that is never a movie.
        if let formatName = format["format_name"]?.stringValue, formatName == "tty" {
            throw LabelingError(.notAVideo, path: path, reason: "not a video file (it is read as text)")
        }
        let streams = (root["streams"]?.arrayValue ?? []).compactMap(\.objectValue)
        let hasAudio = streams.contains { $0["codec_type"]?.stringValue == "audio" }
        let video = streams.first { stream in
            let isAttachedPicture = stream["disposition"]?.objectValue?["attached_pic"]?.doubleValue == 1
            return stream["codec_type"]?.stringValue == "video" && !isAttachedPicture
        }
        guard let video else {
            let what = hasAudio ? "it has only audio" : "it has no streams ffmpeg can show as video"
            throw LabelingError(.noVideoStream, path: path, reason: "no video stream (\(what))")
        }
        let width = Int(video["width"]?.doubleValue ?? 0)
        let height = Int(video["height"]?.doubleValue ?? 0)
        guard width > 0, height > 0 else {
            throw LabelingError(.notAVideo, path: path, reason: "video stream has no picture size")
        }
        // ffprobe reports durations as strings ("3.000000"), or omits them (live streams, some containers).
        func seconds(_ value: JSONValue?) -> Double? {
            guard let value else { return nil }
            let number = value.stringValue.flatMap(Double.init) ?? value.doubleValue
            guard let number, number.isFinite, number > 0 else { return nil }
            return number
        }
        let duration = seconds(format["duration"]) ?? seconds(video["duration"])
        return VideoProbe(width: width, height: height, duration: duration, hasAudio: hasAudio)
    }
}
