import Foundation
@testable import Video
import XCTest
import _TestSupport

/// `trace`'s compositing, read back: nothing before the first frame, the curve growing, and at the end the colour
/// at the three points and along the curve, the background away from it. The pictures here are drawn by the test
/// itself (discs along the same quadratic), so the Overlays module's rasteriser is not what is checked.
final class TracedVideoTests: XCTestCase {
    func testTheOverlayAppearsOnItsFirstFrameGrowsAndStays() throws {
        let folder = try makeTemporaryFolder(self)
        let tools = try requireTools()
        let video = folder + "/grey.mp4", output = folder + "/traced.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "color=c=0x303030:s=160x120:r=25:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", video])
        let probe = try VideoProbe.probe(path: video, tools: tools)
        // Pictures 0 … 20 on frames 10 … 30: picture i shows discs of radius 3 along B(t) for t ≤ i / 20.
        let p0 = (20.0, 100.0), p1 = (80.0, 20.0), p2 = (140.0, 100.0)
        let control = (2 * p1.0 - (p0.0 + p2.0) / 2, 2 * p1.1 - (p0.1 + p2.1) / 2)
        @Sendable func point(_ t: Double) -> (Double, Double) {
            (
                (1 - t) * (1 - t) * p0.0 + 2 * t * (1 - t) * control.0 + t * t * p2.0,
                (1 - t) * (1 - t) * p0.1 + 2 * t * (1 - t) * control.1 + t * t * p2.1
            )
        }
        let overlay = TracedVideo.OverlaySequence(x: 10, y: 10, width: 140, height: 100, firstFrame: 10, count: 21, framesPerSecond: 25) { index in
            var bytes = [UInt8](repeating: 0, count: 140 * 100 * 4)
            for step in 0...(index * 10) {
                let (x, y) = point(Double(step) / 200)
                for row in Int(y) - 3...Int(y) + 3 where row >= 10 && row < 110 {
                    for column in Int(x) - 3...Int(x) + 3 where column >= 10 && column < 150 {
                        let offset = ((row - 10) * 140 + column - 10) * 4
                        bytes.replaceSubrange(offset..<offset + 4, with: [255, 0, 0, 255])
                    }
                }
            }
            return bytes
        }
        try TracedVideo.render(video: video, probe: probe, frameCount: 50, overlay: overlay, to: output, tools: tools)
        let decoded = try RenderTestMedia.frames(of: output, folder: folder)
        XCTAssertEqual(decoded.frames.count, 50)
        func isRed(_ frame: Int, _ at: (Double, Double)) -> Bool {
            let pixel = RenderTestMedia.pixel(decoded.frames[frame], frameWidth: decoded.width, Int(at.0), Int(at.1))
            return pixel.0 > 180 && pixel.1 < 90 && pixel.2 < 90
        }
        XCTAssertFalse(isRed(9, p0), "nothing before the first frame")
        XCTAssertTrue(isRed(10, p0), "the start on the first frame")
        XCTAssertFalse(isRed(18, p1), "picture 8 reaches t = 0.4")
        XCTAssertTrue(isRed(21, p1), "picture 11 reaches t = 0.55")
        XCTAssertFalse(isRed(29, p2))
        for frame in [30, 40, 49] {
            for step in 0...20 { XCTAssertTrue(isRed(frame, point(Double(step) / 20)), "frame \(frame), t = \(Double(step) / 20)") }
            XCTAssertFalse(isRed(frame, (80, 100)), "away from the curve")
        }
    }

    func testADeviceIsWrittenThroughAndAFolderOrBadEndingIsRefused() throws {
        let folder = try makeTemporaryFolder(self)
        let tools = try requireTools()
        let video = folder + "/grey.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "color=c=0x303030:s=64x48:r=25:d=0.4", "-c:v", "libx264", "-pix_fmt", "yuv420p", video])
        let probe = try VideoProbe.probe(path: video, tools: tools)
        let overlay = TracedVideo.OverlaySequence(x: 0, y: 0, width: 4, height: 4, firstFrame: 0, count: 1, framesPerSecond: 25) { _ in
            [UInt8](repeating: 255, count: 64)
        }
        XCTAssertNoThrow(try TracedVideo.render(video: video, probe: probe, frameCount: 10, overlay: overlay, to: "/dev/null", tools: tools))
        assertVideoError(.writeFailed) {
            try TracedVideo.render(video: video, probe: probe, frameCount: 10, overlay: overlay, to: folder, tools: tools)
        }
        assertVideoError(.invalidArgument) {
            try TracedVideo.render(video: video, probe: probe, frameCount: 10, overlay: overlay, to: folder + "/x.txt", tools: tools)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "no temporary file left")
    }
}
