import Foundation
import XCTest
import ImageCodecs
@testable import Video

/// A small crop: these tests compare decoders frame for frame and read a slide's colour, which no output size
/// changes, and the 224-pixel crop's resizing in a debug build was about half of their time (the early-close test,
/// which times a decode, keeps the network's crop).
private let sampleOptions = DecodeOptions(cropAndResize: CropAndResize(outputSide: 32, padding: 4))

final class SegmentedVideoFrameSourceTests: XCTestCase {
    private func drain(_ source: FrameSource) throws -> [Frame] {
        var frames: [Frame] = []
        while let frame = try source.nextFrame() { frames.append(frame) }
        source.close()
        return frames
    }

    /// Segments decoded side by side must give exactly the frames one ffmpeg gives: same count, same seconds, same
    /// pixels (H.264 with B-frames and keyframes 2 s apart, so segments start between keyframes; the veryfast
    /// encode has its B-frames skipped, the medium one not).
    func testSegmentsGiveTheSameFramesAsOneDecoder() throws {
        let folder = try makeTemporaryFolder(self)
        for preset in ["medium", "veryfast"] {
            let video = folder + "/moving-\(preset).mp4"
            try ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=11", "-c:v", "libx264", "-preset", preset,
                "-g", "50", "-bf", "3", "-pix_fmt", "yuv420p", video,
            ])
            let whole = try drain(VideoFrameSource(path: video, every: 1, options: sampleOptions))
            XCTAssertEqual(whole.count, 11)
            for (longest, parallelism, segmentCount) in [(3, 2, 4), (2, 3, 6), (300, 2, 2)] {
                let source = try SegmentedVideoFrameSource(
                    path: video, every: 1, options: sampleOptions, maximumSegmentFrames: longest,
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

    /// A slide show of solid colours with irregular durations (multiples of 1/25 s, so 25-fps timestamps are exact),
    /// one frame per slide (variable frame rate, so frames are sparse and the only keyframe is the first): the
    /// slides start at these seconds, some between whole seconds, one exactly on one (8.0), and some (0.4 s from
    /// 8.0) over before the next whole second comes.
    private static let slideStarts: [Double] = [0, 0.72, 3.0, 4.12, 8.0, 8.4, 11.0, 12.52, 13.4, 16.6, 18.4, 20.4]
    private static let slideColours: [UInt32] = [
        0xFF0000, 0x00FF00, 0x0000FF, 0xFFFF00, 0x00FFFF, 0xFF00FF,
        0xFFFFFF, 0x000000, 0x808080, 0x800000, 0x008000, 0x000080,
    ]
    /// The last slide is listed twice, since the concat demuxer ignores the last file's duration: the video ends
    /// with a frame at 22.0 s lasting 1/25 s.
    private static let slideShowEnd = 22.0

    private func makeSlideShow(in folder: String, name: String, arguments: [String]) throws -> String {
        var list = ""
        for (position, colour) in Self.slideColours.enumerated() {
            let picture = folder + "/slide\(position).png"
            if !FileManager.default.fileExists(atPath: picture) {
                try ffmpeg(["-f", "lavfi", "-i", "color=c=0x\(String(colour, radix: 16).leftPadded(to: 6)):size=96x64", "-frames:v", "1", picture])
            }
            let end = position + 1 < Self.slideStarts.count ? Self.slideStarts[position + 1] : Self.slideShowEnd
            list += "file '\(picture)'\nduration \(String(format: "%.2f", end - Self.slideStarts[position]))\n"
        }
        list += "file '\(folder)/slide\(Self.slideColours.count - 1).png'\n"
        let listPath = folder + "/slides.txt"
        try Data(list.utf8).write(to: URL(fileURLWithPath: listPath))
        let video = folder + "/" + name
        try ffmpeg(["-f", "concat", "-safe", "0", "-i", listPath, "-pix_fmt", "yuv420p"] + arguments + [video])
        return video
    }

    /// Which slide a decoded frame shows: the nearest colour (YUV rounding moves each channel a few steps).
    private func slide(in frame: Frame) -> Int {
        var sums = [0, 0, 0]
        for (offset, value) in frame.image.pixels.enumerated() { sums[offset % 3] += Int(value) }
        let pixels = frame.image.pixels.count / 3
        let mean = sums.map { $0 / pixels }
        let distances = Self.slideColours.map { colour in
            abs(mean[0] - Int(colour >> 16)) + abs(mean[1] - Int((colour >> 8) & 0xFF)) + abs(mean[2] - Int(colour & 0xFF))
        }
        return distances.firstIndex(of: distances.min()!)!
    }

    /// Every sample is the slide on screen at exactly its second (the last one started at or before it), from one
    /// decoder and from segments of every size, which start between the sparse frames and far from any keyframe.
    /// Before segments kept the frames between the keyframe and their start, each segment lost the slide already
    /// showing at its start and every later sample came early.
    func testSlideShowSamplesAreThePictureOnScreenAtEachSecond() throws {
        let folder = try makeTemporaryFolder(self)
        let truth = (0...Int(Self.slideShowEnd)).map { second in Self.slideStarts.lastIndex { $0 <= Double(second) }! }
        // Segments of one sample start at every second; longer ones in rounds of several decoders.
        for (name, arguments, plans) in [
            ("slides.mp4", ["-fps_mode", "vfr", "-c:v", "libx264"], [(1, 2), (7, 3)]),
            ("slides.mkv", ["-fps_mode", "vfr", "-c:v", "libx264", "-bf", "2"], [(2, 3)]),
            ("slides.avi", ["-fps_mode", "vfr", "-c:v", "mpeg4"], [(3, 2)]),
        ] {
            let video = try makeSlideShow(in: folder, name: name, arguments: arguments)
            let whole = try drain(VideoFrameSource(path: video, every: 1, options: sampleOptions))
            XCTAssertEqual(whole.map(slide), truth, "\(name), one decoder")
            XCTAssertEqual(whole.map(\.second), truth.indices.map(Double.init), name)
            for (longest, parallelism) in plans {
                let source = try SegmentedVideoFrameSource(
                    path: video, every: 1, options: sampleOptions, maximumSegmentFrames: longest,
                    parallelism: parallelism)
                let context = "\(name), segments of at most \(longest) s, \(parallelism) decoders"
                XCTAssertGreaterThan(source.segments.count, 1, context)
                let frames = try drain(source)
                XCTAssertEqual(frames.map(slide), truth, context)
                XCTAssertEqual(frames.map(\.second), truth.indices.map(Double.init), context)
                XCTAssertEqual(frames.map(\.index), Array(truth.indices), context)
            }
        }
    }

    /// Half-second sampling of the same slide show: sample n is at n/2 s and shows the slide on screen then.
    func testSlideShowAtHalfSeconds() throws {
        let folder = try makeTemporaryFolder(self)
        let video = try makeSlideShow(in: folder, name: "slides.mp4", arguments: ["-fps_mode", "vfr", "-c:v", "libx264"])
        let truth = (0...Int(Self.slideShowEnd * 2)).map { half in Self.slideStarts.lastIndex { $0 <= Double(half) / 2 }! }
        let frames = try drain(SegmentedVideoFrameSource(path: video, every: 0.5, options: sampleOptions, maximumSegmentFrames: 4, parallelism: 3))
        XCTAssertEqual(frames.map(slide), truth)
        XCTAssertEqual(frames.map(\.second), truth.indices.map { Double($0) * 0.5 })
    }

    /// A clip whose frame rate changes (25 fps, then 5 fps, then 12.5 fps) with keyframes 30 frames apart: any
    /// segment plan gives one decoder's samples, pixel for pixel, at every whole second.
    func testVariableFrameRateClipGivesTheSameFramesAsOneDecoder() throws {
        let folder = try makeTemporaryFolder(self)
        let video = folder + "/variable.mp4"
        // Frame N's time: N/25 for the first 100 (4 s), then 0.2 s apart for 40 (8 s), then 0.08 s apart.
        let times = "if(lt(N,100),N/25,if(lt(N,140),4+(N-100)/5,12+(N-140)*0.08))"
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8", "-vf", "setpts='\(times)/TB'",
            "-fps_mode", "vfr", "-c:v", "libx264", "-g", "30", "-bf", "2", "-pix_fmt", "yuv420p", video,
        ])
        let whole = try drain(VideoFrameSource(path: video, every: 1, options: sampleOptions))
        // 200 frames: the last at 12 + 59 · 0.08 = 16.72 s, so samples at 0 … 16 s.
        XCTAssertEqual(whole.map(\.second), (0...16).map(Double.init))
        for (longest, parallelism) in [(2, 2), (3, 3), (4, 2)] {
            let frames = try drain(
                SegmentedVideoFrameSource(
                    path: video, every: 1, options: sampleOptions, maximumSegmentFrames: longest,
                    parallelism: parallelism))
            let context = "segments of at most \(longest) s, \(parallelism) decoders"
            XCTAssertEqual(frames.map(\.second), whole.map(\.second), context)
            for (a, b) in zip(frames, whole) {
                XCTAssertTrue(a.image == b.image, "frame at \(a.second) s differs: \(context)")
            }
        }
    }

    /// MPEG-TS has no index; ffmpeg's seek in it can land past the wanted time, so it is decoded in one piece, and
    /// still gives each second's slide.
    func testStreamsWithoutAnIndexAreOneSegment() throws {
        let folder = try makeTemporaryFolder(self)
        let video = try makeSlideShow(in: folder, name: "slides.mp4", arguments: ["-fps_mode", "cfr", "-r", "25", "-c:v", "libx264", "-g", "25"])
        let transport = folder + "/slides.ts"
        try ffmpeg(["-i", video, "-c", "copy", transport])
        let source = try SegmentedVideoFrameSource(path: transport, every: 1, options: sampleOptions, maximumSegmentFrames: 3, parallelism: 2)
        XCTAssertFalse(source.probe.seeksByIndex)
        XCTAssertEqual(source.segments.count, 1)
        XCTAssertEqual(source.segments.first?.runsToEnd, true)
        let truth = (0...Int(Self.slideShowEnd)).map { second in Self.slideStarts.lastIndex { $0 <= Double(second) }! }
        XCTAssertEqual(try drain(source).map(slide).prefix(truth.count), ArraySlice(truth))
        XCTAssertTrue(try SegmentedVideoFrameSource(path: video, every: 1, options: sampleOptions).probe.seeksByIndex)
    }

    /// Over a grid of sample counts, segment caps and decoder counts: contiguous, in order, every sample once,
    /// none longer than the cap, a multiple of the decoders (unless there are fewer samples than that), only the
    /// last one running to the end.
    func testPlanOverAGrid() {
        for total in 1...80 {
            for longest in 1...9 {
                for parallelism in 1...7 {
                    let plan = SegmentedVideoFrameSource.plan(total: total, maximumSegmentFrames: longest, parallelism: parallelism)
                    let context = "\(total) samples, at most \(longest) each, \(parallelism) decoders: \(plan)"
                    var next = 0
                    for segment in plan {
                        XCTAssertEqual(segment.firstIndex, next, context)
                        XCTAssertTrue((1...longest).contains(segment.frameCount), context)
                        next += segment.frameCount
                    }
                    XCTAssertEqual(next, total, context)
                    XCTAssertEqual(plan.map(\.runsToEnd), plan.indices.map { $0 == plan.count - 1 }, context)
                    // Whole rounds of side-by-side segments, as few as the cap allows; equal segments but the last.
                    let rounds = (total + parallelism * longest - 1) / (parallelism * longest)
                    XCTAssertLessThanOrEqual(plan.count, rounds * parallelism, context)
                    XCTAssertEqual(Set(plan.dropLast().map(\.frameCount)).count, plan.count > 1 ? 1 : 0, context)
                    XCTAssertLessThanOrEqual(plan.last!.frameCount, plan.first!.frameCount, context)
                }
            }
        }
        for (total, longest, parallelism) in [(Int.max, Int.max, Int.max), (Int.max, 300, 4), (5, Int.max, 1 << 62), (0, 0, 0), (-3, -1, -9)] {
            let plan = SegmentedVideoFrameSource.plan(total: total, maximumSegmentFrames: longest, parallelism: parallelism)
            XCTAssertFalse(plan.isEmpty)
            XCTAssertEqual(plan.first?.firstIndex, 0)
            XCTAssertEqual(plan.last?.runsToEnd, true)
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
        // The network's crop here: its resizing makes decoding the whole movie slow enough for the bound to catch a wait.
        let source = try SegmentedVideoFrameSource(path: video, every: 1, options: networkOptions, maximumSegmentFrames: 30, parallelism: 2)
        let started = Date()
        XCTAssertNotNil(try source.nextFrame())
        source.close()
        XCTAssertNil(try source.nextFrame())
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "closing must not wait for the whole movie")
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
