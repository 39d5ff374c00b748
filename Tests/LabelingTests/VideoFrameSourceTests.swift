import Foundation
import XCTest
import ImageCodecs
@testable import Labeling

final class VideoFrameSourceTests: XCTestCase {
    /// 3 s of red then 3 s of blue, 320×240 at 25 fps.
    private func makeRedThenBlue(in folder: String) throws -> String {
        let path = folder + "/red-blue.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "color=c=red:size=320x240:rate=25:duration=3",
                    "-f", "lavfi", "-i", "color=c=blue:size=320x240:rate=25:duration=3",
                    "-filter_complex", "[0:v][1:v]concat=n=2:v=1:a=0[v]", "-map", "[v]",
                    "-c:v", "mpeg4", "-q:v", "2", path])
        return path
    }

    /// The fake classifier: mean red vs mean blue decides, with confidence 0.9.
    private func colourClassifier(_ frames: [Frame]) -> [[Float]] {
        frames.map { frame in
            var red = 0, blue = 0
            for pixel in stride(from: 0, to: frame.image.pixels.count, by: 3) {
                red += Int(frame.image.pixels[pixel])
                blue += Int(frame.image.pixels[pixel + 2])
            }
            return red > blue ? [0.9, 0.1] : [0.1, 0.9]
        }
    }

    func testEndToEndLabelChangeAtTheRightSecond() throws {
        let folder = try makeTemporaryFolder(self)
        let video = try makeRedThenBlue(in: folder)
        let source = try VideoFrameSource(path: video, every: 1, tools: try requireTools())
        XCTAssertEqual(source.probe.width, 320)
        XCTAssertEqual(source.probe.height, 240)
        XCTAssertEqual(source.probe.duration ?? 0, 6, accuracy: 0.1)
        XCTAssertFalse(source.probe.hasAudio)
        var progress: [LabelingProgress] = []
        var batchSizes: [Int] = []
        let labeler = MovieLabeler(labels: ["A", "B"], batchSize: 4)
        let frames = try labeler.label(source, sourcePath: video, classify: { batch in
            batchSizes.append(batch.count)
            XCTAssertTrue(batch.allSatisfy { $0.isNetworkInput && $0.image.width == 224 && $0.image.height == 224 })
            return colourClassifier(batch)
        }, progress: { progress.append($0) })
        XCTAssertEqual(frames.count, 6, "one frame per second of a 6-s video")
        XCTAssertEqual(frames.map(\.second), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(batchSizes, [4, 2])
        XCTAssertEqual(progress.map(\.framesDone), [4, 6])
        XCTAssertEqual(progress.last?.totalFrames, 6)
        let markers = MarkerPolicy().markers(frames)
        XCTAssertEqual(markers.count, 2)
        XCTAssertEqual(markers.first, Marker(second: 0, label: "A"))
        XCTAssertEqual(markers.last?.label, "B")
        XCTAssertEqual(Double(markers.last?.second ?? 0), 3, accuracy: 1, "change from red to blue at 3 s")
    }

    func testHalfSecondInterval() throws {
        let folder = try makeTemporaryFolder(self)
        let video = try makeRedThenBlue(in: folder)
        let source = try VideoFrameSource(path: video, every: 0.5, tools: try requireTools())
        var seconds: [Double] = []
        while let frame = try source.nextFrame() { seconds.append(frame.second) }
        XCTAssertEqual(seconds.count, 12)
        XCTAssertEqual(seconds.prefix(4), [0, 0.5, 1, 1.5])
    }

    /// A 321×257 picture encoded losslessly: the crop side is ⌊257·7/8⌋ = 224, so ffmpeg's scale is the identity
    /// and each output pixel must equal the source pixel at (left + x, top + y) with left = 49, top = 17 — the
    /// `CenterCrop` rule, including its +1 rounding for odd margins.
    func testCropMatchesTheCenterCropRuleExactly() throws {
        let folder = try makeTemporaryFolder(self)
        let width = 321, height = 257
        var raw = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                raw[offset] = UInt8(x % 256)
                raw[offset + 1] = UInt8(y % 256)
                raw[offset + 2] = UInt8((x / 256) * 16 + (y / 256))
            }
        }
        let rawPath = folder + "/picture.rgb"
        try Data(raw).write(to: URL(fileURLWithPath: rawPath))
        let video = folder + "/picture.nut"
        try ffmpeg(["-f", "rawvideo", "-pix_fmt", "rgb24", "-video_size", "\(width)x\(height)", "-framerate", "1",
                    "-i", rawPath, "-c:v", "rawvideo", "-pix_fmt", "rgb24", video])
        let source = try VideoFrameSource(path: video, every: 1, tools: try requireTools())
        let frame = try XCTUnwrap(try source.nextFrame())
        XCTAssertNil(try source.nextFrame())
        let crop = CropExpression.crop(width: width, height: height)
        XCTAssertEqual(crop.side, 224)
        XCTAssertEqual(crop.left, 49)
        XCTAssertEqual(crop.top, 17)
        var mismatches = 0
        for y in 0..<224 {
            for x in 0..<224 {
                let output = (y * 224 + x) * 3
                let input = ((y + crop.top) * width + (x + crop.left)) * 3
                if Array(frame.image.pixels[output..<output + 3]) != Array(raw[input..<input + 3]) { mismatches += 1 }
            }
        }
        XCTAssertEqual(mismatches, 0)
    }

    func testCropArithmeticMatchesImageCodecsCenterCrop() {
        for (width, height) in [(320, 240), (240, 320), (1920, 1080), (257, 257), (3, 5), (1001, 999), (4032, 3024), (1, 1), (7, 2000)] {
            let crop = CropExpression.crop(width: width, height: height)
            let reference = CenterCrop(width: width, height: height)
            XCTAssertEqual(crop.side, reference.side)
            XCTAssertEqual(crop.left, reference.left)
            XCTAssertEqual(crop.top, reference.top)
        }
    }

    func testStoppingEarlyEndsFFmpeg() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/long.mp4"
        // A minute of test pattern at 10 fps, all of it sampled: 600 frames.
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=10:duration=60", "-c:v", "mpeg4", video])
        let source = try VideoFrameSource(path: video, every: 0.1, tools: try requireTools())
        XCTAssertNotNil(try source.nextFrame())
        XCTAssertNotNil(try source.nextFrame())
        let started = Date()
        source.close()
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertNil(try source.nextFrame())
    }

    func testClassifierFailureStopsFFmpegAndPropagates() throws {
        struct Stop: Error {}
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/long.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=10:duration=60", "-c:v", "mpeg4", video])
        let started = Date()
        do {
            let source = try VideoFrameSource(path: video, every: 0.1, tools: try requireTools())
            _ = try MovieLabeler(labels: ["A"]).label(source, sourcePath: video, classify: { _ in throw Stop() })
            XCTFail("the classifier's error was swallowed")
        } catch is Stop {
        }
        // A dropped source that was never closed must not hang either.
        do {
            let source = try VideoFrameSource(path: video, every: 0.1, tools: try requireTools())
            XCTAssertNotNil(try source.nextFrame())
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testMissingVideo() throws {
        let error = assertLabelingError(.fileNotFound) {
            try VideoFrameSource(path: "/nonexistent/movie.mp4", tools: try requireTools())
        }
        XCTAssertEqual(error?.description, "/nonexistent/movie.mp4: file not found")
    }

    func testTextFilesAreNotVideos() throws {
        let folder = try makeTemporaryFolder(self)
        for name in ["notes.txt", "fake.mp4"] {
            let path = folder + "/" + name
            try Data("this is not a movie\n".utf8).write(to: URL(fileURLWithPath: path))
            let error = assertLabelingError(.notAVideo) { try VideoFrameSource(path: path, tools: try requireTools()) }
            XCTAssertEqual(error?.description.hasPrefix(path + ": not a video file"), true, "\(String(describing: error))")
        }
    }

    func testAudioOnlyFileHasNoVideoStream() throws {
        let folder = try makeTemporaryFolder(self)
        let path = folder + "/tone.wav"
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", path])
        let error = assertLabelingError(.noVideoStream) { try VideoFrameSource(path: path, tools: try requireTools()) }
        XCTAssertEqual(error?.description, path + ": no video stream (it has only audio)")
    }

    func testToolsNotOnPath() {
        let error = assertLabelingError(.toolNotFound) {
            try ExternalTools.locate(for: "movie.mp4", searchPath: "/nonexistent-bin")
        }
        XCTAssertEqual(error?.description, "movie.mp4: ffmpeg not found on PATH; run scripts/setup.sh")
    }

    /// Intervals outside a millisecond to a day, or faster than the video's frames, are refused before ffmpeg
    /// runs; a typed interval a little under the frame interval (0.0333 for 29.97 fps) is not.
    func testSamplingIntervalBounds() throws {
        let folder = try makeTemporaryFolder(self)
        let video = try makeRedThenBlue(in: folder)
        let tools = try requireTools()
        for every in [0, -1, 1e-300, 0.0009, 86_401, 1e300, .infinity, .nan] {
            let error = assertLabelingError(.invalidArgument) { try VideoFrameSource(path: video, every: every, tools: tools) }
            XCTAssertEqual(error?.path, video)
            assertLabelingError(.invalidArgument) { try SegmentedVideoFrameSource(path: video, every: every, tools: tools) }
        }
        let error = assertLabelingError(.invalidArgument) { try VideoFrameSource(path: video, every: 0.01, tools: tools) }
        XCTAssertEqual(error?.description, video + ": sampling every 0.01 s is faster than the video's frame rate "
                       + "(25 fps, a frame every 0.04 s); sample every 0.04 s or more")
        assertLabelingError(.invalidArgument) { try SegmentedVideoFrameSource(path: video, every: 0.02, tools: tools) }
        XCTAssertEqual(try VideoFrameSource(path: video, every: 0.04, tools: tools).expectedFrameCount, 150)
        XCTAssertNotNil(try VideoFrameSource(path: video, every: 0.039, tools: tools), "within the slack")

        let ntsc = folder + "/ntsc.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=30000/1001:duration=1", "-c:v", "mpeg4", ntsc])
        let probe = try VideoProbe.probe(path: ntsc, tools: tools)
        XCTAssertEqual(probe.frameRate ?? 0, 30000.0 / 1001.0, accuracy: 1e-9)
        XCTAssertNotNil(try VideoFrameSource(path: ntsc, every: 0.0333, tools: tools))
        XCTAssertNotNil(try VideoFrameSource(path: ntsc, every: 0.033, tools: tools))
        XCTAssertEqual(VideoProbe.rate("0/0"), nil)
        XCTAssertEqual(VideoProbe.rate("25/1"), 25)
        XCTAssertEqual(VideoProbe.rate("1/0"), nil)
        XCTAssertEqual(VideoProbe.rate("nonsense"), nil)
    }

    func testBadIntervalAndClassifierMismatch() throws {
        let folder = try makeTemporaryFolder(self)
        let video = try makeRedThenBlue(in: folder)
        assertLabelingError(.invalidArgument) { try VideoFrameSource(path: video, every: 0, tools: try requireTools()) }
        let source = try VideoFrameSource(path: video, tools: try requireTools())
        assertLabelingError(.classifierMismatch) {
            try MovieLabeler(labels: ["A", "B"]).label(source, sourcePath: video, classify: { $0.map { _ in [1] } })
        }
    }

    func testFailingFFmpegReportsItsLastLine() throws {
        let folder = try makeTemporaryFolder(self)
        let video = try makeRedThenBlue(in: folder)
        // A fake "ffmpeg" that complains and fails, to check the error carries its message.
        let script = folder + "/ffmpeg"
        try Data("#!/bin/sh\necho 'first line' >&2\necho 'Decoder exploded' >&2\nexit 3\n".utf8)
            .write(to: URL(fileURLWithPath: script))
        chmod(script, 0o755)
        let real = try requireTools()
        let source = try VideoFrameSource(path: video, tools: ExternalTools(ffmpeg: script, ffprobe: real.ffprobe))
        let error = assertLabelingError(.toolFailed) { try source.nextFrame() }
        XCTAssertEqual(error?.description, video + ": ffmpeg failed (exit status 3): Decoder exploded")
    }
}
