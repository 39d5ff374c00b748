import Foundation
import XCTest
import ImageCodecs
@testable import Labeling

final class SegmentedVideoFrameSourceTests: XCTestCase {
    /// Segments decoded side by side must give exactly the frames one ffmpeg gives: same count, same seconds, same
    /// pixels (H.264 with B-frames and keyframes 2 s apart, so segments start between keyframes).
    func testSegmentsGiveTheSameFramesAsOneDecoder() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/moving.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=11", "-c:v", "libx264", "-g", "50",
                    "-bf", "3", "-pix_fmt", "yuv420p", video])
        func drain(_ source: FrameSource) throws -> [Frame] {
            var frames: [Frame] = []
            while let frame = try source.nextFrame() { frames.append(frame) }
            source.close()
            return frames
        }
        let whole = try drain(VideoFrameSource(path: video, every: 1))
        for (segmentSeconds, parallelism) in [(3.0, 2), (4.0, 3), (20.0, 2)] {
            let source = try SegmentedVideoFrameSource(path: video, every: 1, segmentSeconds: segmentSeconds, parallelism: parallelism)
            XCTAssertEqual(source.segments.count, Int((11 / segmentSeconds).rounded(.up)))
            let frames = try drain(source)
            XCTAssertEqual(frames.map(\.second), whole.map(\.second), "segments of \(segmentSeconds) s")
            XCTAssertEqual(frames.map(\.index), Array(0..<whole.count))
            for (a, b) in zip(frames, whole) {
                XCTAssertEqual(a.image, b.image, "frame at \(a.second) s differs with segments of \(segmentSeconds) s")
            }
        }
        XCTAssertEqual(whole.count, 11)
    }

    func testClosingEarlyStopsEveryDecoder() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/long.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=5:duration=300", "-c:v", "mpeg4", video])
        let source = try SegmentedVideoFrameSource(path: video, every: 1, segmentSeconds: 30, parallelism: 2)
        let started = Date()
        XCTAssertNotNil(try source.nextFrame())
        source.close()
        XCTAssertNil(try source.nextFrame())
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "closing must not wait for the whole movie")
    }
}
