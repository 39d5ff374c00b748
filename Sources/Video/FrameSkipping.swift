import Foundation

/// Which frames ffmpeg may leave undecoded when only one frame a second (or fewer) is wanted.
///
/// Frames nothing refers to (`noref`) can always be skipped. Skipping every B-frame (`bidir`) saves much more, but
/// is only right when no P-frame refers to a B-frame. H.264 allows that, and x264 does it whenever it keeps more
/// than one reference frame (its default preset keeps three), so a P-frame may predict from the middle B-frame of
/// a pyramid; in HEVC nearly every frame is such a B-frame. With one reference frame, x264's P-frames predict
/// only from the P- or I-frame before them, and B-frames only serve other B-frames.
///
/// So `bidir` is taken only when the stream says it was made that way: x264 writes its settings into the first
/// keyframe as text (`x264 - core … options: … ref=1 … bframes=3 …`), and `choose` reads them from the start of
/// the file. Anything else (other encoders, no settings found, several references) keeps `noref`.
///
/// Comparing a full and a B-skipping decode of the first seconds is not a safe test: a movie that opens on a still
/// or black picture decodes identically either way, and breaks later.
///
/// Any skipping assumes frames are short next to the sampling interval: a skipped frame then moves a sample by a
/// frame or a run of B-frames. In a slide show or another variable-rate video one skippable frame can stay on
/// screen for seconds, and skipping it would show the slide before instead; so only a constant frame rate of at
/// least `framesPerSample` frames per sample is ever skipped in.
public enum FrameSkipping: String, Sendable, Equatable {
    case noReferences = "noref"
    case bidirectional = "bidir"

    /// How much of the file's start is searched for x264's settings: the first keyframe lies behind the container's
    /// header, which for an MP4 with its index in front (`faststart`) grows with the movie's length.
    public static let searchedBytes = 16 << 20

    /// The shortest gap between samples at which skipping pays: closer samples need nearly every frame, and
    /// skipping would move them by a frame or more.
    public static let minimumSampleInterval = 0.5

    /// The fewest frames per sample at which skipping is allowed: a skipped run of frames then moves a sample by
    /// a small part of the interval.
    public static let framesPerSample = 10.0

    /// The deepest skipping that decodes `path` exactly as a full decode would, for samples `every` seconds apart.
    ///
    /// Nil (decode every frame) below `minimumSampleInterval` or under `framesPerSample` frames per sample, without
    /// reading the file; nil too unless the frame count over the duration shows a constant rate
    /// (`VideoProbe.constantFrameRate(frames:)`), the count taken from the container or, when it states none, from
    /// ffprobe counting packets with `tools`.
    public static func choose(path: String, every: Double, probe: VideoProbe, tools: ExternalTools) -> FrameSkipping? {
        guard every >= minimumSampleInterval, let base = probe.baseFrameRate, base * every >= framesPerSample,
            let frames = probe.frameCount ?? VideoProbe.countFrames(path: path, tools: tools),
            probe.constantFrameRate(frames: frames) != nil
        else {
            return nil
        }
        return choose(path: path)
    }

    /// The deepest skipping that decodes `path` exactly as a full decode would.
    public static func choose(path: String) -> FrameSkipping {
        guard let handle = FileHandle(forReadingAtPath: path) else { return .noReferences }
        defer { try? handle.close() }
        guard let start = try? handle.read(upToCount: searchedBytes) else { return .noReferences }
        return choose(x264Settings: x264Settings(in: start))
    }

    /// `bidir` for x264 settings with B-frames and one reference frame, else `noref`.
    public static func choose(x264Settings settings: [String: String]?) -> FrameSkipping {
        guard let settings, settings["ref"] == "1", let bFrames = settings["bframes"].flatMap({ Int($0) }), bFrames > 0 else {
            return .noReferences
        }
        return .bidirectional
    }

    /// The `key=value` options of the first x264 settings text in `bytes`, or nil when there is none.
    public static func x264Settings(in bytes: Data) -> [String: String]? {
        let signature = Array("x264 - core ".utf8)
        // memchr to each candidate first byte, then memcmp: a generic collection search took 0.6 s over a file
        // without the text.
        let found: Int? = bytes.withUnsafeBytes { buffer in
            signature.withUnsafeBytes { needle in
                guard let base = buffer.baseAddress else { return nil }
                var offset = 0
                while buffer.count - offset >= needle.count,
                    let hit = memchr(base + offset, Int32(needle[0]), buffer.count - offset - needle.count + 1)
                {
                    let position = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(hit, needle.baseAddress!, needle.count) == 0 { return position }
                    offset = position + 1
                }
                return nil
            }
        }
        guard let found else { return nil }
        // The text runs to the NUL that ends the SEI payload; stop at any other control byte too.
        let text = String(decoding: bytes.dropFirst(found).prefix(4096).prefix { $0 >= 0x20 && $0 < 0x7f }, as: UTF8.self)
        guard let options = text.range(of: " - options: ") else { return nil }
        var settings: [String: String] = [:]
        for token in text[options.upperBound...].split(separator: " ") {
            let parts = token.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { settings[String(parts[0])] = String(parts[1]) }
        }
        return settings
    }
}
