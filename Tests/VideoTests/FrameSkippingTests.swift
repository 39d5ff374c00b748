import Foundation
import XCTest
@testable import Video

final class FrameSkippingTests: XCTestCase {
    /// Per-frame MD5s of a full decode, or of one that skips B-frames, keyed by presentation time.
    private func frameHashes(_ video: String, skippingBFrames: Bool, seconds: Int?) throws -> [String: String] {
        let tools = try ExternalTools.locate(for: video)
        let arguments =
            ["-nostdin", "-hide_banner", "-loglevel", "fatal", "-threads", "1"]
            + (skippingBFrames ? ["-skip_frame", "bidir"] : [])
            + ["-i", video, "-map", "0:v:0"] + (seconds.map { ["-t", "\($0)"] } ?? [])
            + ["-fps_mode", "passthrough", "-f", "framemd5", "-"]
        let result = try ToolRunner.run(tools.ffmpeg, arguments, subject: video, deadline: ToolRunner.work)
        XCTAssertEqual(result.status, 0)
        var hashes: [String: String] = [:]
        for line in String(decoding: result.output, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if fields.count >= 6 { hashes[fields[2]] = fields[5] }
        }
        return hashes
    }

    /// How many frames a B-skipping decode gets wrong, and how many it gives at all (over the first `seconds`).
    private func damage(_ video: String, seconds: Int? = nil) throws -> (wrong: Int, decoded: Int, all: Int) {
        let full = try frameHashes(video, skippingBFrames: false, seconds: seconds)
        let skipped = try frameHashes(video, skippingBFrames: true, seconds: seconds)
        return (skipped.filter { full[$0.key] != $0.value }.count, skipped.count, full.count)
    }

    /// x264 with one reference frame (its fast presets): P-frames never predict from B-frames, so skipping every
    /// B-frame decodes all other frames exactly, over the whole moving clip.
    func testOneReferenceX264SkipsBFramesExactly() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/veryfast.mp4"
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8", "-c:v", "libx264", "-preset", "veryfast",
            "-bf", "3", "-pix_fmt", "yuv420p", video,
        ])
        XCTAssertEqual(FrameSkipping.choose(path: video), .bidirectional)
        let tools = try requireTools()
        let probe = try VideoProbe.probe(path: video, tools: tools)
        XCTAssertEqual(probe.frameCount, 200)
        XCTAssertEqual(probe.constantFrameRate(frames: 200), 25)
        XCTAssertEqual(FrameSkipping.choose(path: video, every: 1, probe: probe, tools: tools), .bidirectional)
        XCTAssertNil(FrameSkipping.choose(path: video, every: 0.25, probe: probe, tools: tools), "samples this close need every frame")
        // Matroska states no frame count: ffprobe counts the packets.
        let matroska = folder + "/veryfast.mkv"
        try ffmpeg(["-i", video, "-c", "copy", matroska])
        let matroskaProbe = try VideoProbe.probe(path: matroska, tools: tools)
        XCTAssertNil(matroskaProbe.frameCount)
        XCTAssertEqual(VideoProbe.countFrames(path: matroska, tools: tools), 200)
        XCTAssertEqual(FrameSkipping.choose(path: matroska, every: 1, probe: matroskaProbe, tools: tools), .bidirectional)
        let (wrong, decoded, all) = try damage(video)
        XCTAssertEqual(wrong, 0)
        XCTAssertLessThan(decoded, all / 2, "most frames are B-frames, and are skipped")
    }

    /// x264's default preset keeps three reference frames, so P-frames predict from B-frames and skipping them
    /// spoils the picture. The clip opens on 5 s of black, where a skipping decode still matches a full one: a check
    /// of the first seconds would have been fooled; the encoder's settings are not.
    func testSeveralReferencesKeepBFramesEvenAfterAStillOpening() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/medium.mp4"
        try ffmpeg([
            "-f", "lavfi", "-i", "color=black:size=320x240:rate=25:duration=5",
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8",
            "-filter_complex", "[0:v][1:v]concat=n=2:v=1[v]", "-map", "[v]",
            "-c:v", "libx264", "-preset", "medium", "-bf", "3", "-pix_fmt", "yuv420p", video,
        ])
        XCTAssertEqual(FrameSkipping.choose(path: video), .noReferences)
        XCTAssertEqual(try damage(video, seconds: 4).wrong, 0, "the black opening hides the damage")
        XCTAssertGreaterThan(try damage(video).wrong, 10, "skipping B-frames must really be wrong here")
    }

    /// A slide show holds each frame for seconds, and x264 makes some of them B-frames nothing refers to: skipping
    /// one would show the slide before it for as long. Only a constant rate of ten or more frames per sample
    /// allows skipping.
    func testSparseOrSlowVideosAreNeverSkippedIn() throws {
        let folder = try makeTemporaryFolder(self)
        var list = ""
        for (position, colour) in ["red", "lime", "blue", "yellow", "white", "black"].enumerated() {
            let picture = folder + "/\(position).png"
            try ffmpeg(["-f", "lavfi", "-i", "color=c=\(colour):size=64x48", "-frames:v", "1", picture])
            list += "file '\(picture)'\nduration \(["1.24", "2.36", "0.84", "3.16", "1.64", "2.04"][position])\n"
        }
        try Data(list.utf8).write(to: URL(fileURLWithPath: folder + "/list.txt"))
        let slides = folder + "/slides.mp4"
        try ffmpeg([
            "-f", "concat", "-safe", "0", "-i", folder + "/list.txt", "-fps_mode", "vfr", "-c:v", "libx264",
            "-preset", "veryfast", "-bf", "3", "-pix_fmt", "yuv420p", slides,
        ])
        let tools = try requireTools()
        XCTAssertEqual(FrameSkipping.choose(path: slides), .bidirectional, "the encoder alone would allow it")
        for container in ["mp4", "mkv"] {
            let path = folder + "/slides." + container
            if container != "mp4" { try ffmpeg(["-i", slides, "-c", "copy", path]) }
            let probe = try VideoProbe.probe(path: path, tools: tools)
            XCTAssertEqual(probe.baseFrameRate, 25, container)
            XCTAssertNil(FrameSkipping.choose(path: path, every: 1, probe: probe, tools: tools), container)
        }

        let slow = folder + "/slow.mp4"
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=5:duration=4", "-c:v", "libx264", "-preset", "veryfast",
            "-pix_fmt", "yuv420p", slow,
        ])
        let slowProbe = try VideoProbe.probe(path: slow, tools: tools)
        XCTAssertEqual(slowProbe.constantFrameRate(frames: 20), 5)
        XCTAssertNil(FrameSkipping.choose(path: slow, every: 1, probe: slowProbe, tools: tools), "5 frames a sample: too few")
        XCTAssertEqual(FrameSkipping.choose(path: slow, every: 2, probe: slowProbe, tools: tools), .bidirectional)
    }

    /// HEVC's B-frames are references for everything after them; other encoders say nothing we can trust.
    func testOtherEncodersKeepBFrames() throws {
        let folder = try makeTemporaryFolder(self)
        let hevc = folder + "/x265.mp4", mpeg4 = folder + "/mpeg4.mp4"
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx265",
            "-x265-params", "log-level=none", "-pix_fmt", "yuv420p", hevc,
        ])
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "mpeg4", "-bf", "2", mpeg4])
        XCTAssertEqual(FrameSkipping.choose(path: hevc), .noReferences)
        XCTAssertEqual(FrameSkipping.choose(path: mpeg4), .noReferences)
        XCTAssertEqual(FrameSkipping.choose(path: folder + "/missing.mp4"), .noReferences)
    }

    /// The settings are found wherever the container puts the first keyframe: after the index (`faststart`), or in
    /// Matroska.
    func testSettingsFoundInEveryContainerLayout() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/veryfast.mp4"
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=30", "-c:v", "libx264", "-preset", "veryfast",
            "-pix_fmt", "yuv420p", video,
        ])
        try ffmpeg(["-i", video, "-c", "copy", "-movflags", "+faststart", folder + "/faststart.mp4"])
        try ffmpeg(["-i", video, "-c", "copy", folder + "/veryfast.mkv"])
        for file in ["veryfast.mp4", "faststart.mp4", "veryfast.mkv"] {
            XCTAssertEqual(FrameSkipping.choose(path: folder + "/" + file), .bidirectional, file)
        }
    }

    func testParsingTheSettingsText() {
        let text =
            "x264 - core 164 r3095 baee400 - H.264/MPEG-4 AVC codec - Copyleft 2003-2022 - http://www.videolan.org/x264.html"
            + " - options: cabac=1 ref=1 deblock=1:0:0 analyse=0x3:0x113 bframes=3 b_pyramid=2 keyint=250"
        var bytes = Data([0, 0, 1, 6, 5, 0xff]) + Data(text.utf8) + Data([0, 0x80]) + Data(" ref=4".utf8)
        let settings = FrameSkipping.x264Settings(in: bytes)
        XCTAssertEqual(settings?["ref"], "1", "the text ends at the NUL")
        XCTAssertEqual(settings?["bframes"], "3")
        XCTAssertEqual(settings?["deblock"], "1:0:0")
        XCTAssertEqual(FrameSkipping.choose(x264Settings: settings), .bidirectional)
        XCTAssertEqual(FrameSkipping.choose(x264Settings: ["ref": "3", "bframes": "3"]), .noReferences)
        XCTAssertEqual(FrameSkipping.choose(x264Settings: ["ref": "1", "bframes": "0"]), .noReferences, "no B-frames: nothing more to skip")
        XCTAssertEqual(FrameSkipping.choose(x264Settings: ["bframes": "3"]), .noReferences)
        XCTAssertEqual(FrameSkipping.choose(x264Settings: nil), .noReferences)
        bytes = Data("x264 - core 164 without options".utf8)
        XCTAssertNil(FrameSkipping.x264Settings(in: bytes))
        XCTAssertNil(FrameSkipping.x264Settings(in: Data(repeating: 0x41, count: 1000)))
        XCTAssertNil(FrameSkipping.x264Settings(in: Data("xx x264 - cor".utf8)), "a partial signature at the very end")
        let afterFalseStarts = Data("xxx x264 - cor x264 - core 1 - options: ref=2 bframes=2".utf8)
        XCTAssertEqual(FrameSkipping.x264Settings(in: afterFalseStarts), ["ref": "2", "bframes": "2"])
    }
}
