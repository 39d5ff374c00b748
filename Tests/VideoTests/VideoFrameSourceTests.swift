import Foundation
import XCTest
import ImageCodecs
@testable import Labeling
@testable import Video

final class VideoFrameSourceTests: XCTestCase {
    /// 3 s of red then 3 s of blue, 320×240 at 25 fps.
    private func makeRedThenBlue(in folder: String) throws -> String {
        let path = folder + "/red-blue.mp4"
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=red:size=320x240:rate=25:duration=3",
            "-f", "lavfi", "-i", "color=c=blue:size=320x240:rate=25:duration=3",
            "-filter_complex", "[0:v][1:v]concat=n=2:v=1:a=0[v]", "-map", "[v]",
            "-c:v", "mpeg4", "-q:v", "2", path,
        ])
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
        let source = try VideoFrameSource(path: video, every: 1, options: networkOptions, tools: try requireTools())
        XCTAssertEqual(source.probe.width, 320)
        XCTAssertEqual(source.probe.height, 240)
        XCTAssertEqual(source.probe.duration ?? 0, 6, accuracy: 0.1)
        XCTAssertFalse(source.probe.hasAudio)
        var progress: [LabelingProgress] = []
        var batchSizes: [Int] = []
        let labeler = MovieLabeler(labels: ["A", "B"], batchSize: 4)
        let frames = try labeler.label(
            source, sourcePath: video,
            classify: { batch in
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
        let source = try VideoFrameSource(path: video, every: 0.5, options: networkOptions, tools: try requireTools())
        var seconds: [Double] = []
        while let frame = try source.nextFrame() { seconds.append(frame.second) }
        XCTAssertEqual(seconds.count, 12)
        XCTAssertEqual(seconds.prefix(4), [0, 0.5, 1, 1.5])
    }

    /// Pictures stored losslessly as a one-frame video and as a PNG must decode to identical pixels: the frame
    /// goes through the same box reduction, centre crop and antialiased resize as the image file. 321×257 has odd
    /// margins (crop 224 at left 49, top 17: the resize is the identity); 2101×1103 is box-reduced by 2 first.
    func testVideoFrameDecodesExactlyAsThePNGOfItsPixels() throws {
        let folder = try makeTemporaryFolder(self)
        for (width, height) in [(321, 257), (2101, 1103), (240, 320)] {
            var raw = [UInt8](repeating: 0, count: width * height * 3)
            var state: UInt32 = 12345
            for index in raw.indices {
                state = state &* 1_664_525 &+ 1_013_904_223
                // Smooth gradients plus noise, so that a shifted crop or another filter changes many pixels.
                let x = (index / 3) % width, y = (index / 3) / width
                raw[index] = UInt8(truncatingIfNeeded: (x + 2 * y + index % 3 * 40) / 3 + Int(state >> 29))
            }
            let rawPath = folder + "/picture-\(width).rgb"
            try Data(raw).write(to: URL(fileURLWithPath: rawPath))
            let video = folder + "/picture-\(width).nut", png = folder + "/picture-\(width).png"
            let input = ["-f", "rawvideo", "-pix_fmt", "rgb24", "-video_size", "\(width)x\(height)", "-framerate", "1", "-i", rawPath]
            try ffmpeg(input + ["-c:v", "rawvideo", "-pix_fmt", "rgb24", video])
            try ffmpeg(input + ["-frames:v", "1", png])
            let source = try VideoFrameSource(path: video, every: 1, options: networkOptions, tools: try requireTools())
            let frame = try XCTUnwrap(try source.nextFrame())
            XCTAssertNil(try source.nextFrame())
            let picture = try ImageLoader.load(path: png, options: networkOptions)
            XCTAssertEqual(frame.image.width, 224)
            XCTAssertEqual(frame.image.height, 224)
            XCTAssertEqual(frame.image, picture, "\(width)×\(height): the frame differs from its PNG")
            if width == 321 {
                // The identity resize: output pixel (x, y) is source pixel (49 + x, 17 + y).
                let mismatches = (0..<(224 * 224)).filter { pixel in
                    let (x, y) = (pixel % 224, pixel / 224)
                    let input = ((y + 17) * width + (x + 49)) * 3
                    return Array(frame.image.pixels[(pixel * 3)..<(pixel * 3 + 3)]) != Array(raw[input..<input + 3])
                }
                XCTAssertEqual(mismatches.count, 0)
            }
        }
    }

    func testStoppingEarlyEndsFFmpeg() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/long.mp4"
        // A minute of test pattern at 10 fps, all of it sampled: 600 frames.
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=10:duration=60", "-c:v", "mpeg4", video])
        let source = try VideoFrameSource(path: video, every: 0.1, options: networkOptions, tools: try requireTools())
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
            let source = try VideoFrameSource(path: video, every: 0.1, options: networkOptions, tools: try requireTools())
            _ = try MovieLabeler(labels: ["A"]).label(source, sourcePath: video, classify: { _ in throw Stop() })
            XCTFail("the classifier's error was swallowed")
        } catch is Stop {
        }
        // A dropped source that was never closed must not hang either.
        do {
            let source = try VideoFrameSource(path: video, every: 0.1, options: networkOptions, tools: try requireTools())
            XCTAssertNotNil(try source.nextFrame())
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    func testMissingVideo() throws {
        let error = assertVideoError(.fileNotFound) {
            try VideoFrameSource(path: "/nonexistent/movie.mp4", options: networkOptions, tools: try requireTools())
        }
        XCTAssertEqual(error?.description, "/nonexistent/movie.mp4: file not found")
    }

    func testTextFilesAreNotVideos() throws {
        let folder = try makeTemporaryFolder(self)
        for name in ["notes.txt", "fake.mp4"] {
            let path = folder + "/" + name
            try Data("this is not a movie\n".utf8).write(to: URL(fileURLWithPath: path))
            let error = assertVideoError(.notAVideo) { try VideoFrameSource(path: path, options: networkOptions, tools: try requireTools()) }
            XCTAssertEqual(error?.description.hasPrefix(path + ": not a video file"), true, "\(String(describing: error))")
        }
    }

    func testAudioOnlyFileHasNoVideoStream() throws {
        let folder = try makeTemporaryFolder(self)
        let path = folder + "/tone.wav"
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", path])
        let error = assertVideoError(.noVideoStream) { try VideoFrameSource(path: path, options: networkOptions, tools: try requireTools()) }
        XCTAssertEqual(error?.description, path + ": no video stream (it has only audio)")
    }

    func testToolsNotOnPath() {
        let error = assertVideoError(.toolNotFound) {
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
            let error = assertVideoError(.invalidArgument) { try VideoFrameSource(path: video, every: every, options: networkOptions, tools: tools) }
            XCTAssertEqual(error?.path, video)
            assertVideoError(.invalidArgument) { try SegmentedVideoFrameSource(path: video, every: every, options: networkOptions, tools: tools) }
        }
        let error = assertVideoError(.invalidArgument) { try VideoFrameSource(path: video, every: 0.01, options: networkOptions, tools: tools) }
        XCTAssertEqual(
            error?.description,
            video + ": sampling every 0.01 s is faster than the video's frame rate "
                + "(25 fps, a frame every 0.04 s); sample every 0.04 s or more")
        assertVideoError(.invalidArgument) { try SegmentedVideoFrameSource(path: video, every: 0.02, options: networkOptions, tools: tools) }
        XCTAssertEqual(try VideoFrameSource(path: video, every: 0.04, options: networkOptions, tools: tools).expectedFrameCount, 150)
        XCTAssertNotNil(try VideoFrameSource(path: video, every: 0.039, options: networkOptions, tools: tools), "within the slack")

        let ntsc = folder + "/ntsc.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=30000/1001:duration=1", "-c:v", "mpeg4", ntsc])
        let probe = try VideoProbe.probe(path: ntsc, tools: tools)
        XCTAssertEqual(probe.frameRate ?? 0, 30000.0 / 1001.0, accuracy: 1e-9)
        XCTAssertNotNil(try VideoFrameSource(path: ntsc, every: 0.0333, options: networkOptions, tools: tools))
        XCTAssertNotNil(try VideoFrameSource(path: ntsc, every: 0.033, options: networkOptions, tools: tools))
        XCTAssertEqual(VideoProbe.rate("0/0"), nil)
        XCTAssertEqual(VideoProbe.rate("25/1"), 25)
        XCTAssertEqual(VideoProbe.rate("1/0"), nil)
        XCTAssertEqual(VideoProbe.rate("nonsense"), nil)
    }

    func testBadIntervalAndClassifierMismatch() throws {
        let folder = try makeTemporaryFolder(self)
        let video = try makeRedThenBlue(in: folder)
        assertVideoError(.invalidArgument) { try VideoFrameSource(path: video, every: 0, options: networkOptions, tools: try requireTools()) }
        let source = try VideoFrameSource(path: video, options: networkOptions, tools: try requireTools())
        do {
            _ = try MovieLabeler(labels: ["A", "B"]).label(source, sourcePath: video, classify: { $0.map { _ in [1] } })
            XCTFail("a row of one probability for two labels must be refused")
        } catch let error as LabelingError {
            XCTAssertEqual(error.kind, .classifierMismatch, "\(error)")
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
        let source = try VideoFrameSource(path: video, options: networkOptions, tools: ExternalTools(ffmpeg: script, ffprobe: real.ffprobe))
        let error = assertVideoError(.toolFailed) { try source.nextFrame() }
        XCTAssertEqual(error?.description, video + ": ffmpeg failed (exit status 3): Decoder exploded")
    }
}
