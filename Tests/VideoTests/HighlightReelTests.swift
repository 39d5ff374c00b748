import Foundation
import XCTest
@testable import Video

final class HighlightsTests: XCTestCase {
    func testRenderJoinsClipsIntoOneVideo() throws {
        let tools = try requireTools()
        let folder = try makeTemporaryFolder(self)
        let silent = folder + "/silent.mp4"
        let withSound = folder + "/sound.mkv"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=4", "-c:v", "mpeg4", silent])
        try ffmpeg(["-f", "lavfi", "-i", "color=c=green:size=240x320:rate=25:duration=4",
                    "-f", "lavfi", "-i", "sine=frequency=300:duration=4", "-c:v", "mpeg4", "-c:a", "aac", "-shortest",
                    withSound])
        let output = folder + "/highlights.mp4"
        var progress: [Int] = []
        try HighlightReel.render(clips: [Clip(video: silent, start: 1, end: 3), Clip(video: withSound, start: 0, end: 1.5)],
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
