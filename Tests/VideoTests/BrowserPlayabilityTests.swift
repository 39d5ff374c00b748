import Foundation
import XCTest
@testable import Video

/// Issue 44, defect 1: a review page must link a video a browser plays. The expectations follow what Debian's
/// Chromium 156 was seen to play (Video README), narrowed to the forms every browser plays.
final class BrowserPlayabilityTests: XCTestCase {
    /// Each file is made by ffmpeg and read by ffprobe; the decision is the conservative rule's.
    func testTheDecisionFromWhatFfprobeSaysOfFilesFfmpegMade() throws {
        let tools = try requireTools()
        let folder = try makeTemporaryFolder(self)
        let picture = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1"]
        let sound = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-shortest"]
        let cases: [(name: String, arguments: [String], plays: Bool, problem: String?)] = [
            ("mjpeg.avi", picture + ["-c:v", "mjpeg"], false, "mjpeg video in a .avi file"),
            ("msmpeg4.avi", picture + ["-c:v", "msmpeg4"], false, "msmpeg4v3 video in a .avi file"),
            ("h264.avi", picture + ["-c:v", "libx264", "-pix_fmt", "yuv420p"], false, "h264 video in a .avi file"),
            ("h264.mp4", picture + ["-c:v", "libx264", "-pix_fmt", "yuv420p"], true, nil),
            ("h264-aac.mp4", picture + sound + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac"], true, nil),
            ("h264-mp3.mov", picture + sound + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "libmp3lame"], true, nil),
            ("h264-ac3.mp4", picture + sound + ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "ac3"], false, "ac3 sound in a .mp4 file"),
            (
                "h264-444.mp4", picture + ["-c:v", "libx264", "-pix_fmt", "yuv444p"], false,
                "H.264 video in the High 4:4:4 Predictive profile, yuv444p (browsers are sure to play only 8-bit 4:2:0 in Baseline, Main or High)"
            ),
            (
                "h264-lossless.mp4", picture + ["-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p"], false,
                "H.264 video in the High 4:4:4 Predictive profile, yuv420p (browsers are sure to play only 8-bit 4:2:0 in Baseline, Main or High)"
            ),
            ("h264-baseline.m4v", picture + ["-c:v", "libx264", "-profile:v", "baseline", "-pix_fmt", "yuv420p"], true, nil),
            ("mpeg4.mp4", picture + ["-c:v", "mpeg4"], false, "mpeg4 video in a .mp4 file"),
            ("h264.mkv", picture + ["-c:v", "libx264", "-pix_fmt", "yuv420p"], false, "h264 video in a .mkv file"),
            ("vp9.webm", picture + ["-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p"], true, nil),
            ("vp8-vorbis.webm", picture + sound + ["-c:v", "libvpx", "-c:a", "libvorbis"], true, nil),
            ("vp9.mkv", picture + ["-c:v", "libvpx-vp9"], false, "vp9 video in a .mkv file"),
            ("hevc.mkv", picture + ["-c:v", "libx265", "-x265-params", "log-level=none"], false, "hevc video in a .mkv file"),
            ("hevc.mp4", picture + ["-c:v", "libx265", "-tag:v", "hvc1", "-x265-params", "log-level=none"], false, "hevc video in a .mp4 file"),
            ("theora.ogv", picture + ["-c:v", "libtheora"], false, "theora video in a .ogv file"),
            ("h264.ts", picture + ["-c:v", "libx264", "-pix_fmt", "yuv420p"], false, "h264 video in a .ts file"),
        ]
        for item in cases {
            let path = folder + "/" + item.name
            try ffmpeg(item.arguments + [path])
            let decision = try BrowserPlayability.probe(path: path, tools: tools)
            XCTAssertEqual(decision.plays, item.plays, item.name)
            XCTAssertEqual(decision.problem, item.problem, item.name)
        }
    }

    /// Cover art (an attached picture) is no video stream; a subtitle stream does not count either.
    func testCoverArtAndSubtitlesDoNotCount() {
        let streams = [
            BrowserPlayability.Stream(type: "video", codec: "h264", pixelFormat: "yuv420p"),
            BrowserPlayability.Stream(type: "subtitle", codec: "mov_text"),
            BrowserPlayability.Stream(type: "audio", codec: "aac"),
        ]
        XCTAssertTrue(BrowserPlayability(formatName: "mov,mp4,m4a,3gp,3g2,mj2", fileExtension: "MP4", streams: streams).plays)
        XCTAssertEqual(
            BrowserPlayability(formatName: "mov,mp4,m4a,3gp,3g2,mj2", fileExtension: "3gp", streams: streams).problem,
            "h264 video in a .3gp file")
        XCTAssertEqual(
            BrowserPlayability(formatName: "mp3", fileExtension: "mp3", streams: [.init(type: "audio", codec: "mp3")]).problem,
            "no video stream a browser shows")
    }

    /// The preview of an MJPEG AVI with sound: H.264 4:2:0 with AAC, its index in front, a browser plays it, the
    /// size kept (never upscaled) or bounded to 1280 × 720 keeping the shape; nothing else left in the folder.
    func testThePreviewIsSmallH264ABrowserPlays() throws {
        let tools = try requireTools()
        let folder = try makeTemporaryFolder(self)
        let small = folder + "/small.avi", large = folder + "/large.avi"
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=320x240:rate=10:duration=2", "-f", "lavfi", "-i", "sine=frequency=440:duration=2",
            "-shortest", "-c:v", "mjpeg", "-c:a", "pcm_s16le", small,
        ])
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=1920x1200:rate=5:duration=1", "-c:v", "mjpeg", large])
        let smallPreview = folder + "/page-small.mp4", largePreview = folder + "/page-large.mp4"
        try PagePreview.write(video: small, to: smallPreview, tools: tools)
        try PagePreview.write(video: large, to: largePreview, tools: tools)

        let decision = try BrowserPlayability.probe(path: smallPreview, tools: tools)
        XCTAssertTrue(decision.plays, decision.problem ?? "")
        XCTAssertEqual(decision.streams.map(\.codec), ["h264", "aac"])
        XCTAssertEqual(decision.streams.first?.pixelFormat, "yuv420p")
        let probe = try VideoProbe.probe(path: smallPreview, tools: tools)
        XCTAssertEqual([probe.width, probe.height], [320, 240], "not upscaled")
        XCTAssertEqual(probe.duration ?? 0, 2, accuracy: 0.2)
        let bounded = try VideoProbe.probe(path: largePreview, tools: tools)
        XCTAssertEqual([bounded.width, bounded.height], [1152, 720], "1920 × 1200 scaled into 1280 × 720, its shape kept")
        // faststart: the index (moov) comes before the media data (mdat).
        let bytes = try Data(contentsOf: URL(fileURLWithPath: smallPreview))
        let moov = try XCTUnwrap(bytes.range(of: Data("moov".utf8))), mdat = try XCTUnwrap(bytes.range(of: Data("mdat".utf8)))
        XCTAssertLessThan(moov.lowerBound, mdat.lowerBound)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted(),
            ["large.avi", "page-large.mp4", "page-small.mp4", "small.avi"])
    }

    /// ffmpeg failing half-way: a clear error naming the video and ffmpeg's last line, and no file left at all
    /// (not the half-written temporary file, not the output).
    func testAFailedPreviewLeavesNothing() throws {
        let tools = try requireTools()
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/clip.avi"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1", "-c:v", "mjpeg", video])
        // An ffmpeg that says it has libx264, then writes a few bytes of its output and fails.
        let broken = folder + "/ffmpeg"
        try """
        #!/bin/sh
        for last in "$@"; do :; done
        case " $* " in *" -encoders "*) echo " V....D libx264              libx264 H.264"; exit 0;; esac
        printf 'half' > "${last#file:}"
        echo "Conversion failed: disk on fire" >&2
        exit 1
        """.write(toFile: broken, atomically: true, encoding: .utf8)
        chmod(broken, 0o755)
        let output = folder + "/page-clip.mp4"
        let error = assertVideoError(.toolFailed) {
            try PagePreview.write(video: video, to: output, tools: ExternalTools(ffmpeg: broken, ffprobe: tools.ffprobe))
        }
        XCTAssertEqual(
            error?.description, "\(video): ffmpeg could not make a preview for the page (exit status 1): Conversion failed: disk on fire")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["clip.avi", "ffmpeg"])
    }
}
