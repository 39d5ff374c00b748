import Foundation
import ImageCodecs
import XCTest
@testable import Video

final class HighlightsTests: XCTestCase {
    func testRenderJoinsClipsIntoOneVideo() throws {
        let tools = try requireTools()
        let folder = try makeTemporaryFolder(self)
        let silent = folder + "/silent.mp4"
        let withSound = folder + "/sound.mkv"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=4", "-c:v", "mpeg4", silent])
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=green:size=240x320:rate=25:duration=4",
            "-f", "lavfi", "-i", "sine=frequency=300:duration=4", "-c:v", "mpeg4", "-c:a", "aac", "-shortest",
            withSound,
        ])
        let output = folder + "/highlights.mp4"
        var progress: [Int] = []
        try HighlightReel.render(
            clips: [Clip(video: silent, start: 1, end: 3), Clip(video: withSound, start: 0, end: 1.5)],
            to: output, format: HighlightFormat(width: 320, height: 180, framesPerSecond: 25),
            tools: tools, progress: { done, _ in progress.append(done) })
        XCTAssertEqual(progress, [1, 2])
        let probe = try VideoProbe.probe(path: output, tools: tools)
        XCTAssertEqual(probe.width, 320)
        XCTAssertEqual(probe.height, 180)
        XCTAssertTrue(probe.hasAudio)
        XCTAssertEqual(probe.duration ?? 0, 3.5, accuracy: 0.3)
        // Nothing left behind next to the output.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains("partial") }
        XCTAssertEqual(leftovers, [])
    }

    /// Issue 44, item 7: without a size the reel is the largest input's (never a fixed 1280 × 720), and a smaller
    /// clip is centred at its own size, not upscaled.
    func testTheReelKeepsTheLargestInputsSizeAndNeverUpscales() throws {
        let tools = try requireTools()
        let folder = try makeTemporaryFolder(self)
        let large = folder + "/large.mp4", small = folder + "/small.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "color=c=white:size=320x240:rate=25:duration=2", "-c:v", "mpeg4", large])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=white:size=160x120:rate=25:duration=2", "-c:v", "mpeg4", small])
        let output = folder + "/reel.mp4"
        let size = try HighlightReel.render(
            clips: [Clip(video: small, start: 0, end: 1), Clip(video: large, start: 0, end: 1)],
            to: output, format: HighlightFormat(framesPerSecond: 10), tools: tools)
        XCTAssertEqual(size, ImageSize(width: 320, height: 240))
        let decoded = try RenderTestMedia.frames(of: output, folder: folder)
        XCTAssertEqual([decoded.width, decoded.height], [320, 240])
        // The small clip's first frame: white in the centred 160 × 120, black around it.
        let first = decoded.frames[0]
        XCTAssertGreaterThan(RenderTestMedia.pixel(first, frameWidth: 320, 160, 120).0, 200)
        XCTAssertGreaterThan(RenderTestMedia.pixel(first, frameWidth: 320, 90, 70).0, 200)
        XCTAssertLessThan(RenderTestMedia.pixel(first, frameWidth: 320, 70, 50).0, 40, "outside the small clip: not upscaled")
        XCTAssertLessThan(RenderTestMedia.pixel(first, frameWidth: 320, 250, 190).0, 40)
        // The large clip's last frame fills the reel.
        let last = try XCTUnwrap(decoded.frames.last)
        XCTAssertGreaterThan(RenderTestMedia.pixel(last, frameWidth: 320, 5, 5).0, 200)
        // A size asked for wins, and the larger clip is scaled down into it.
        let asked = try HighlightReel.render(
            clips: [Clip(video: large, start: 0, end: 1)], to: folder + "/asked.mp4",
            format: HighlightFormat(width: 160, height: 90, framesPerSecond: 10), tools: tools)
        XCTAssertEqual(asked, ImageSize(width: 160, height: 90))
        XCTAssertEqual([try VideoProbe.probe(path: folder + "/asked.mp4", tools: tools)].map { [$0.width, $0.height] }, [[160, 90]])
        assertVideoError(.invalidArgument) {
            try HighlightReel.render(
                clips: [Clip(video: large, start: 0, end: 1)], to: folder + "/odd.mp4",
                format: HighlightFormat(width: 161, height: 90), tools: tools)
        }
    }

    func testTheDefaultSizeIsTheLargestInputsOnEvenSides() {
        XCTAssertEqual(
            HighlightReel.defaultSize([ImageSize(width: 640, height: 360), ImageSize(width: 1920, height: 1080)]),
            ImageSize(width: 1920, height: 1080))
        XCTAssertEqual(HighlightReel.defaultSize([ImageSize(width: 321, height: 241)]), ImageSize(width: 320, height: 240))
        XCTAssertEqual(
            HighlightReel.defaultSize([ImageSize(width: 320, height: 240), ImageSize(width: 240, height: 320)]),
            ImageSize(width: 320, height: 240), "equal areas: the first")
        XCTAssertEqual(HighlightReel.defaultSize([ImageSize(width: 9, height: 20_000)]), ImageSize(width: 16, height: 8192))
    }

    func testRenderFailsCleanlyAndKeepsTheOldOutput() throws {
        let tools = try requireTools()
        let folder = try makeTemporaryFolder(self)
        let output = folder + "/highlights.mp4"
        try Data("old".utf8).write(to: URL(fileURLWithPath: output))
        assertVideoError(.fileNotFound) {
            try HighlightReel.render(clips: [Clip(video: folder + "/missing.mp4", start: 0, end: 1)], to: output, tools: tools)
        }
        assertVideoError(.invalidArgument) { try HighlightReel.render(clips: [], to: output, tools: tools) }
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "old")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["highlights.mp4"])
    }

    func testEncoderIsDetected() throws {
        let encoder = try HighlightReel.videoEncoder(tools: try requireTools(), subject: "x")
        XCTAssertTrue(["libx264", "mpeg4"].contains(encoder))
    }
}
