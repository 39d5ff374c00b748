import ExternalProcesses
import FileFormats
import Foundation

/// Whether a web browser plays a media file as it is, decided from what ffprobe says of its container and
/// streams, conservatively: a file passes only in a form every current browser plays.
///
/// - MP4 (`.mp4`, `.m4v`, `.mov`): H.264 video in 8-bit 4:2:0 (Baseline, Main or High profile), sound (if any)
///   AAC or MP3.
/// - WebM (`.webm`): VP8, VP9 or AV1 video, sound (if any) Opus or Vorbis.
///
/// Anything else is refused, even where Debian's Chromium happens to play it (see the Video README for what it
/// was seen to play): AVI, MPEG-TS and MPEG-PS never play; Matroska under `.mkv` and H.264 in 10 bits, 4:4:4 or the
/// lossless High 4:4:4 Predictive profile play in Chromium but not in every browser; HEVC, MPEG-4 Part 2, MJPEG and Theora do not play in Chromium.
/// Subtitle, data and cover-art streams do not count.
public struct BrowserPlayability: Sendable, Equatable {
    /// One stream as ffprobe names it.
    public struct Stream: Sendable, Equatable {
        /// `video`, `audio`, `subtitle`, `data` …
        public var type: String
        /// ffprobe's codec name (`h264`, `msmpeg4v3`, `aac` …).
        public var codec: String
        /// The pixel format of a video stream (`yuv420p` …), when stated.
        public var pixelFormat: String?
        /// The codec profile (`High`, `High 4:4:4 Predictive` …), when stated.
        public var profile: String?

        /// A stream.
        public init(type: String, codec: String, pixelFormat: String? = nil, profile: String? = nil) {
            self.type = type
            self.codec = codec
            self.pixelFormat = pixelFormat
            self.profile = profile
        }
    }

    /// ffmpeg's name for the container (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `avi` …).
    public let formatName: String
    /// The file name's ending, lower case, without the dot.
    public let fileExtension: String
    /// The streams that count (cover art left out).
    public let streams: [Stream]
    /// Why a browser may not play the file ("msmpeg4v3 video in a .avi file"); nil when it plays.
    public let problem: String?

    /// Whether every browser plays the file as it is.
    public var plays: Bool { problem == nil }

    private static let mp4Endings: Set<String> = ["mp4", "m4v", "mov"]
    private static let eightBitFourTwoZero: Set<String> = ["yuv420p", "yuvj420p"]
    private static let h264Profiles: Set<String> = ["Baseline", "Constrained Baseline", "Main", "High"]

    /// The decision for a file named with `fileExtension` that ffprobe reads as `formatName` with `streams`.
    public init(formatName: String, fileExtension: String, streams: [Stream]) {
        let ending = fileExtension.lowercased()
        self.formatName = formatName
        self.fileExtension = ending
        self.streams = streams
        problem = Self.problem(formatName: formatName, fileExtension: ending, streams: streams)
    }

    private static func problem(formatName: String, fileExtension: String, streams: [Stream]) -> String? {
        let names = Set(formatName.split(separator: ",").map(String.init))
        let file = fileExtension.isEmpty ? "a file without an ending" : "a .\(fileExtension) file"
        let videos = streams.filter { $0.type == "video" }, sounds = streams.filter { $0.type == "audio" }
        guard let first = videos.first else { return "no video stream a browser shows" }
        let videoCodecs: Set<String>, soundCodecs: Set<String>
        if names.contains("mp4") && mp4Endings.contains(fileExtension) {
            (videoCodecs, soundCodecs) = (["h264"], ["aac", "mp3"])
        } else if names.contains("webm") && fileExtension == "webm" {
            (videoCodecs, soundCodecs) = (["vp8", "vp9", "av1"], ["opus", "vorbis"])
        } else {
            return "\(first.codec) video in \(file)"
        }
        if let video = videos.first(where: { !videoCodecs.contains($0.codec) }) { return "\(video.codec) video in \(file)" }
        if let video = videos.first(where: {
            $0.codec == "h264" && !(eightBitFourTwoZero.contains($0.pixelFormat ?? "") && h264Profiles.contains($0.profile ?? "High"))
        }) {
            let form = [video.profile.map { "the \($0) profile" }, video.pixelFormat].compactMap { $0 }.joined(separator: ", ")
            return "H.264 video in \(form.isEmpty ? "an unstated form" : form) (browsers are sure to play only 8-bit 4:2:0 in Baseline, Main or High)"
        }
        if let sound = sounds.first(where: { !soundCodecs.contains($0.codec) }) { return "\(sound.codec) sound in \(file)" }
        return nil
    }

    /// Runs ffprobe on `path` for its container and streams. Errors, each "path: reason": the file is missing,
    /// ffprobe cannot read it, ffprobe printed something else than JSON.
    public static func probe(path: String, tools: ExternalTools) throws(VideoError) -> BrowserPlayability {
        guard FileManager.default.fileExists(atPath: path) else { throw VideoError(.fileNotFound, path: path, reason: "file not found") }
        let root = try VideoProbe.ffprobeJSON(
            path: path,
            entries: ["-show_entries", "format=format_name:stream=codec_type,codec_name,pix_fmt,profile:stream_disposition=attached_pic"],
            tools: tools)
        let streams = (root["streams"]?.arrayValue ?? []).compactMap(\.objectValue).compactMap { stream -> Stream? in
            guard stream["disposition"]?.objectValue?["attached_pic"]?.doubleValue != 1,
                let type = stream["codec_type"]?.stringValue
            else { return nil }
            return Stream(
                type: type, codec: stream["codec_name"]?.stringValue ?? "unknown", pixelFormat: stream["pix_fmt"]?.stringValue,
                profile: stream["profile"]?.stringValue)
        }
        return BrowserPlayability(
            formatName: root["format"]?.objectValue?["format_name"]?.stringValue ?? "unknown",
            fileExtension: URL(fileURLWithPath: path).pathExtension, streams: streams)
    }
}
