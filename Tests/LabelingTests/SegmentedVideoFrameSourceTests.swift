import Foundation
import XCTest
import ImageCodecs
@testable import Labeling

final class SegmentedVideoFrameSourceTests: XCTestCase {
    /// Segments decoded side by side must give exactly the frames one ffmpeg gives: same count, same seconds, same
    /// pixels (H.264 with B-frames and keyframes 2 s apart, so segments start between keyframes; the veryfast
    /// encode has its B-frames skipped, the medium one not).
    func testSegmentsGiveTheSameFramesAsOneDecoder() throws {
        let folder = try makeTemporaryFolder(self)
        func drain(_ source: FrameSource) throws -> [Frame] {
            var frames: [Frame] = []
            while let frame = try source.nextFrame() { frames.append(frame) }
            source.close()
            return frames
        }
        for preset in ["medium", "veryfast"] {
            let video = folder + "/moving-\(preset).mp4"
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=11", "-c:v", "libx264", "-preset", preset,
                        "-g", "50", "-bf", "3", "-pix_fmt", "yuv420p", video])
            let whole = try drain(VideoFrameSource(path: video, every: 1))
            XCTAssertEqual(whole.count, 11)
            for (longest, parallelism, segmentCount) in [(3, 2, 4), (2, 3, 6), (300, 2, 2)] {
                let source = try SegmentedVideoFrameSource(path: video, every: 1, maximumSegmentFrames: longest,
                                                           parallelism: parallelism)
                let context = "\(preset), segments of at most \(longest) s, \(parallelism) decoders"
                XCTAssertEqual(source.segments.count, segmentCount, context)
                XCTAssertEqual(source.skipping, preset == "veryfast" ? .bidirectional : .noReferences, context)
                let frames = try drain(source)
                XCTAssertEqual(frames.map(\.second), whole.map(\.second), context)
                XCTAssertEqual(frames.map(\.index), Array(0..<whole.count), context)
                for (a, b) in zip(frames, whole) {
                    XCTAssertTrue(a.image == b.image, "frame at \(a.second) s differs: \(context)")
                }
            }
        }
    }

    /// As few segments as the cap allows, a multiple of the parallelism, covering every sample once and in order.
    func testPlan() {
        func counts(_ total: Int, longest: Int = 300, parallelism: Int = 2) -> [Int] {
            let plan = SegmentedVideoFrameSource.plan(total: total, maximumSegmentFrames: longest, parallelism: parallelism)
            var next = 0
            for segment in plan {
                XCTAssertEqual(segment.firstIndex, next, "segments must be contiguous")
                next += segment.frameCount
            }
            XCTAssertEqual(next, total)
            return plan.map(\.frameCount)
        }
        XCTAssertEqual(counts(600), [300, 300], "ten minutes: one segment per decoder")
        XCTAssertEqual(counts(601), [151, 151, 151, 148], "just past 2 × 300: four segments, the last one shorter")
        XCTAssertEqual(counts(1), [1])
        XCTAssertEqual(counts(11), [6, 5])
        XCTAssertEqual(counts(7200).count, 24, "two hours: 24 segments of 300")
        XCTAssertEqual(counts(100, parallelism: 3), [34, 34, 32])
        XCTAssertEqual(counts(11, longest: 2, parallelism: 3), [2, 2, 2, 2, 2, 1])
    }

    func testClosingEarlyStopsEveryDecoder() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/long.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=5:duration=300", "-c:v", "mpeg4", video])
        let source = try SegmentedVideoFrameSource(path: video, every: 1, maximumSegmentFrames: 30, parallelism: 2)
        let started = Date()
        XCTAssertNotNil(try source.nextFrame())
        source.close()
        XCTAssertNil(try source.nextFrame())
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "closing must not wait for the whole movie")
    }
}
