import Foundation
import TensorCore

/// Which frames ffmpeg may leave undecoded when only one frame a second (or fewer) is wanted.
///
/// Frames nothing refers to (`noref`) can always be skipped. Skipping every B-frame (`bidir`) saves much more,
/// but is only right when no P-frame refers to a B-frame: H.264 allows it (x264 does it with several reference
/// frames, not with its fast presets' single one) and in HEVC nearly every frame is such a B-frame.
/// Rather than trust the encoder, `choose` proves it on the stream's first seconds: it decodes them fully and with
/// B-frames skipped, and takes `bidir` only when every frame the skipping decoder produced is bit-identical to the
/// full decoder's (checked by ffmpeg's per-frame MD5). Otherwise, or when the check cannot run, it keeps `noref`.
public enum FrameSkipping: String, Sendable, Equatable {
    case noReferences = "noref"
    case bidirectional = "bidir"

    /// Seconds of video the check decodes twice.
    public static let checkedSeconds = 4

    /// The deepest skipping that decodes `path` exactly as a full decode would, as far as its start shows.
    public static func choose(path: String, tools: ExternalTools) -> FrameSkipping {
        @Sendable func frameHashes(skipping: [String]) -> [String: String]? {
            // Hashing quarter-size frames (area-averaged) is cheap, and still differs wherever a missing reference
            // has spoilt a block.
            let arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-threads", "1"] + skipping
                + ["-i", path, "-map", "0:v:0", "-t", "\(checkedSeconds)", "-vf", "scale=iw/4:ih/4:flags=area",
                   "-fps_mode", "passthrough", "-f", "framemd5", "-"]
            guard let result = try? ToolRunner.run(tools.ffmpeg, arguments, subject: path), result.status == 0 else { return nil }
            var hashes: [String: String] = [:]
            for line in String(decoding: result.output, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
                // stream, dts, pts, duration, size, hash
                let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                if fields.count >= 6 { hashes[fields[2]] = fields[5] }
            }
            return hashes
        }
        // Both decodes at once: the check runs before labeling starts.
        let runs = UncheckedSendable(UnsafeMutableBufferPointer<[String: String]?>.allocate(capacity: 2))
        defer { runs.value.deallocate() }
        DispatchQueue.concurrentPerform(iterations: 2) { run in
            (runs.value.baseAddress! + run).initialize(to: frameHashes(skipping: run == 0 ? [] : ["-skip_frame", "bidir"]))
        }
        guard let full = runs.value[0], let skipped = runs.value[1],
              !skipped.isEmpty, skipped.count < full.count,
              skipped.allSatisfy({ full[$0.key] == $0.value }) else {
            return .noReferences
        }
        return .bidirectional
    }
}
