import ExternalProcesses
import FileFormats
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
    /// The stream's base frame rate (ffprobe's `r_frame_rate`: the lowest rate that represents every frame's
    /// time), when stated.
    public let baseFrameRate: Double?
    /// The stream's average frame rate (`avg_frame_rate`: frames over duration), when stated. A slide show has a
    /// base rate of 25 and an average well under 1.
    public let averageFrameRate: Double?
    /// ffmpeg's name for the container (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `mpegts`, …), when known.
    public let formatName: String?
    /// The number of frames in the video stream, when the container states it (MP4's sample table does;
    /// Matroska does not, and ffprobe then reports its base rate as the average too).
    public let frameCount: Int?
    /// The video stream's own duration, when stated (the file's can be longer, e.g. audio running on).
    public let streamDuration: Double?
    /// Whether the stream's display matrix turns it by a quarter turn, so that ffmpeg (which applies it) yields
    /// frames `height × width`.
    public let isQuarterTurned: Bool

    /// The size of the frames ffmpeg decodes: the stream's size, turned upright.
    public var uprightSize: (width: Int, height: Int) { isQuarterTurned ? (height, width) : (width, height) }

    /// Makes a probe result.
    public init(
        width: Int, height: Int, duration: Double?, hasAudio: Bool, baseFrameRate: Double? = nil,
        averageFrameRate: Double? = nil, formatName: String? = nil, frameCount: Int? = nil,
        streamDuration: Double? = nil, isQuarterTurned: Bool = false
    ) {
        self.isQuarterTurned = isQuarterTurned
        self.width = width
        self.height = height
        self.duration = duration
        self.hasAudio = hasAudio
        self.baseFrameRate = baseFrameRate
        self.averageFrameRate = averageFrameRate
        self.formatName = formatName
        self.frameCount = frameCount
        self.streamDuration = streamDuration
    }

    /// The highest frame rate the stream states, when it states one: sampling faster than this only repeats
    /// frames.
    public var frameRate: Double? { [baseFrameRate, averageFrameRate].compactMap { $0 }.max() }

    /// The base frame rate, when `frames` frames over the stream's duration come to it within 1 % (nominal rates
    /// such as 29.97 against 30000/1001, and durations rounded by the container, differ a little): then no frame
    /// stays on screen much longer than one frame interval. Nil for a slide show or another variable-rate video.
    public func constantFrameRate(frames: Int) -> Double? {
        guard let base = baseFrameRate, let seconds = streamDuration ?? duration, seconds > 0, frames > 0 else { return nil }
        return abs(Double(frames) / seconds - base) <= 0.01 * base ? base : nil
    }

    /// Counts the video stream's packets (one per frame) by reading the file through without decoding: a few
    /// seconds for a feature film. Nil when ffprobe fails, or when it has not read the file through in a minute
    /// plus a second for every 20 MB (a slow disk's pace).
    public static func countFrames(path: String, tools: ExternalTools) -> Int? {
        guard let url = try? MediaPath.input(path) else { return nil }
        let arguments = [
            "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries", "stream=nb_read_packets",
            "-of", "csv=p=0", "--", url,
        ]
        let megabytes = Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1e6
        let deadline = ToolRunner.Deadline(total: (ToolRunner.question.total ?? 60) + megabytes / 20)
        guard let result = try? ToolRunner.run(tools.ffprobe, arguments, subject: path, deadline: deadline), result.status == 0 else {
            return nil
        }
        let text = String(decoding: result.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.split(separator: "\n").first.flatMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: ","))) }
    }

    /// Whether ffmpeg seeks this container through an index of keyframes, so a decoder started at any time lands on
    /// the keyframe at or before it and decodes exactly what a decoder from the start shows there (MP4/MOV,
    /// Matroska/WebM, AVI). Streams without an index (MPEG-TS, MPEG-PS, raw elementary streams) are searched by
    /// timestamp, which can land past the wanted time, so they are decoded in one piece.
    public var seeksByIndex: Bool {
        guard let formatName else { return false }
        let names = Set(formatName.split(separator: ",").map(String.init))
        return !names.isDisjoint(with: ["mov", "mp4", "matroska", "webm", "avi"])
    }

    /// Whether ffprobe read the file with one of its still-picture demuxers (`image2`, `png_pipe`, `jpeg_pipe`,
    /// `webp_pipe` …): a picture, one frame with no time, not a video (`SamplingLimits` refuses to sample it).
    public var isStillPicture: Bool {
        guard let formatName else { return false }
        return formatName.split(separator: ",").contains { $0 == "image2" || $0.hasSuffix("_pipe") }
    }

    /// Runs ffprobe on `path` and checks it is a video.
    ///
    /// Errors, each "path: reason": the file is missing, a folder, or not a regular file (a FIFO or a device, on
    /// which ffprobe would wait for good: `MediaPath.input`); ffprobe cannot read it (not a media file); it has no
    /// video stream (audio only — cover art attached to audio files does not count as video); ffprobe is missing.
    public static func probe(path: String, tools: ExternalTools) throws(VideoError) -> VideoProbe {
        let root = try ffprobeJSON(path: path, entries: ["-show_streams", "-show_format"], tools: tools)
        let format = root["format"]?.objectValue ?? [:]
        // ffmpeg's "tty" demuxer renders any .txt file as an ANSI-art "video"; that is never a movie.
        if let formatName = format["format_name"]?.stringValue, formatName == "tty" {
            throw VideoError(.notAVideo, path: path, reason: "not a video file (it is read as text)")
        }
        let streams = (root["streams"]?.arrayValue ?? []).compactMap(\.objectValue)
        let hasAudio = streams.contains { $0["codec_type"]?.stringValue == "audio" }
        let video = streams.first { stream in
            let isAttachedPicture = stream["disposition"]?.objectValue?["attached_pic"]?.doubleValue == 1
            return stream["codec_type"]?.stringValue == "video" && !isAttachedPicture
        }
        guard let video else {
            let what = hasAudio ? "it has only audio" : "it has no streams ffmpeg can show as video"
            throw VideoError(.noVideoStream, path: path, reason: "no video stream (\(what))")
        }
        let width = WholeNumber.rounding(video["width"]?.doubleValue ?? 0) ?? 0
        let height = WholeNumber.rounding(video["height"]?.doubleValue ?? 0) ?? 0
        guard width > 0, height > 0 else {
            throw VideoError(.notAVideo, path: path, reason: "video stream has no picture size")
        }
        // ffprobe reports durations as strings ("3.000000"), or omits them (live streams, some containers).
        func seconds(_ value: JSONValue?) -> Double? {
            guard let value else { return nil }
            let number = value.stringValue.flatMap(Double.init) ?? value.doubleValue
            guard let number, number.isFinite, number > 0 else { return nil }
            return number
        }
        let duration = seconds(format["duration"]) ?? seconds(video["duration"])
        // A rotation is in the display matrix side data (newer muxers) or in the old "rotate" tag.
        let sideRotation = (video["side_data_list"]?.arrayValue ?? []).compactMap { $0.objectValue?["rotation"]?.doubleValue }.first
        let tagRotation = video["tags"]?.objectValue?["rotate"]?.stringValue.flatMap(Double.init)
        let rotation = WholeNumber.rounding(sideRotation ?? tagRotation ?? 0, .toNearestOrAwayFromZero) ?? 0
        return VideoProbe(
            width: width, height: height, duration: duration, hasAudio: hasAudio,
            baseFrameRate: video["r_frame_rate"]?.stringValue.flatMap(rate),
            averageFrameRate: video["avg_frame_rate"]?.stringValue.flatMap(rate),
            formatName: format["format_name"]?.stringValue,
            frameCount: video["nb_frames"]?.stringValue.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil },
            streamDuration: seconds(video["duration"]),
            isQuarterTurned: abs(rotation) % 180 == 90)
    }

    /// A frame rate as ffprobe writes it ("30000/1001", "25/1"); nil for "0/0" and anything not a positive rate.
    /// ffprobe's JSON about `path` for the given entry options. Errors, each "path: reason": ffprobe cannot read
    /// it (not a media file, with ffprobe's last line), ffprobe printed something else than a JSON object.
    static func ffprobeJSON(path: String, entries: [String], tools: ExternalTools) throws(VideoError) -> [String: JSONValue] {
        let result = try ToolRunner.run(
            tools.ffprobe, ["-v", "error", "-print_format", "json"] + entries + ["--", try MediaPath.input(path)], subject: path,
            deadline: ToolRunner.question)
        guard result.status == 0 else {
            let detail = result.lastErrorLine.isEmpty ? "" : " (ffprobe: \(result.lastErrorLine))"
            throw VideoError(.notAVideo, path: path, reason: "not a video file\(detail)")
        }
        guard let root = try? JSONParser.parse(result.output).objectValue else {
            throw VideoError(.toolFailed, path: path, reason: "ffprobe printed output that is not a JSON object")
        }
        return root
    }

    static func rate(_ text: String) -> Double? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let numerator = Double(parts[0]), let denominator = Double(parts[1]),
            numerator.isFinite, denominator.isFinite, numerator > 0, denominator > 0
        else { return nil }
        let value = numerator / denominator
        return value.isFinite && value > 0 ? value : nil
    }
}
