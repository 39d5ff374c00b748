import Foundation
import XCTest
import ImageCodecs
@testable import Labeling
@testable import Video

final class FrameFolderTests: XCTestCase {
    private let fakeImage = RGBImage(width: 1, height: 1, pixels: [1, 2, 3])

    /// Files whose content is their own name, read back by a loader that fails on "corrupt".
    private func makeFolder(_ names: [String]) throws -> String {
        let folder = try makeTemporaryFolder(self)
        for name in names { try Data(name.utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        return folder
    }

    private func loader(failing: Set<String> = []) -> FrameFolder.Loader {
        { [fakeImage] path throws(ImageError) in
            let name = URL(fileURLWithPath: path).lastPathComponent
            if failing.contains(name) { throw ImageError(path: path, reason: "corrupt JPEG data") }
            return fakeImage
        }
    }

    private func drain(_ source: FrameFolder) throws -> [Frame] {
        var frames: [Frame] = []
        while let frame = try source.nextFrame() { frames.append(frame) }
        return frames
    }

    func testFrameNamesThatAreNotUTF8AreReportedNotDropped() throws {
        let folder = try makeFolder(["1.jpg", "3.jpg"])
        var rawPath = Array(folder.utf8) + Array("/2".utf8) + [0xE9] + Array(".jpg".utf8) + [0]
        let descriptor = rawPath.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(descriptor, 0, "cannot create the test file")
        close(descriptor)
        let source = try FrameFolder(path: folder, load: loader())
        XCTAssertEqual(source.framePaths.map { URL(fileURLWithPath: $0).lastPathComponent }, ["1.jpg", "3.jpg"])
        XCTAssertEqual(
            source.unreadableEntries.map(\.description),
            [folder + "/2\\xE9.jpg: name is not valid UTF-8, so it cannot be opened (shown with \\x escapes); rename it"])
    }

    func testNaturalNumericOrder() throws {
        let folder = try makeFolder(["10.jpg", "2.jpg", "1.jpg", "11.png", "3.jpeg", "20.JPG", "100.jpg"])
        let source = try FrameFolder(path: folder, load: loader())
        let names = source.framePaths.map { URL(fileURLWithPath: $0).lastPathComponent }
        XCTAssertEqual(names, ["1.jpg", "2.jpg", "3.jpeg", "10.jpg", "11.png", "20.JPG", "100.jpg"])
    }

    func testPaddedAndPrefixedNumbersAndIgnoredFiles() throws {
        let folder = try makeFolder([
            "frame_0010.png", "frame_0002.png", "frame_0001.png", ".hidden1.jpg",
            "notes.txt", "cover.jpg", "7.gif", "999999999.jpg",
        ])
        try FileManager.default.createDirectory(atPath: folder + "/5.jpg", withIntermediateDirectories: false)
        let source = try FrameFolder(path: folder, load: loader())
        let names = source.framePaths.map { URL(fileURLWithPath: $0).lastPathComponent }
        XCTAssertEqual(names, ["frame_0001.png", "frame_0002.png", "frame_0010.png", "999999999.jpg"])
        XCTAssertEqual(source.frameNumbers, [1, 2, 10, 999_999_999])
        XCTAssertEqual(source.ignoredFiles, ["5.jpg", "7.gif", "cover.jpg", "notes.txt"], "hidden entries are not listed")
    }

    /// Found by the frame_number fuzz harness: a digit followed by a combining mark is one Character that a range
    /// test ("0"..."9") admits, so "3\u{301}" was taken as a frame number that is not digits.
    func testDigitWithCombiningMarkIsNotADigit() throws {
        XCTAssertNil(FrameFolder.frameNumber(of: "3\u{301}.jpg"))
        XCTAssertEqual(FrameFolder.frameNumber(of: "x4\u{301}05.png"), "5")
        let folder = try makeFolder(["2.jpg", "3\u{301}.jpg", "x4\u{301}05.png"])
        let source = try FrameFolder(path: folder, load: loader())
        let names = source.framePaths.map { URL(fileURLWithPath: $0).lastPathComponent }
        XCTAssertEqual(names, ["2.jpg", "x4\u{301}05.png"])
        XCTAssertEqual(source.ignoredFiles, ["3\u{301}.jpg"])
    }

    /// The number is the time: a folder with gaps keeps them, and an unreadable frame between changes nothing.
    func testGapsInTheNumbersAreGapsInTime() throws {
        let folder = try makeFolder(["1.jpg", "10.jpg", "frame_0004.jpg", "12.png"])
        XCTAssertEqual(try drain(try FrameFolder(path: folder, load: loader())).map(\.second), [0, 3, 9, 11])
        XCTAssertEqual(try drain(try FrameFolder(path: folder, every: 0.5, load: loader())).map(\.second), [0, 1.5, 4.5, 5.5])
        // (n − 1)/4: 1, 4, 10, 12 → 0, 0.75, 2.25, 2.75.
        let frames = try drain(try FrameFolder(path: folder, framesPerSecond: 4, load: loader()))
        XCTAssertEqual(frames.map(\.second), [0, 0.75, 2.25, 2.75])
        XCTAssertEqual(frames.map(\.index), [0, 1, 2, 3], "index is the rank in the folder")
        let skipping = try FrameFolder(path: folder, load: loader(failing: ["frame_0004.jpg"]))
        XCTAssertEqual(try drain(skipping).map(\.second), [0, 9, 11])
        XCTAssertEqual(skipping.skippedFrames.map(\.second), [3])
    }

    /// A folder numbered from 0 (ffmpeg's -start_number 0) starts at frame 0; one starting later keeps its offset.
    func testNumberingFromZeroAndFromLater() throws {
        let zero = try makeFolder(["0.png", "1.png", "3.png"])
        let fromZero = try FrameFolder(path: zero, load: loader())
        XCTAssertEqual(fromZero.firstNumber, 0)
        XCTAssertEqual(try drain(fromZero).map(\.second), [0, 1, 3])
        let later = try makeFolder(["5.png", "6.png"])
        XCTAssertEqual(try drain(try FrameFolder(path: later, every: 2, load: loader())).map(\.second), [8, 10])
    }

    /// Two files claiming one moment are an error naming both, never a silent pick; so is a number too large
    /// to be a time.
    func testOneNumberTwiceAndHugeNumbersAreErrorsNamingTheFiles() throws {
        for (names, message) in [
            (["1.jpg", "01.jpg", "2.jpg"], "01.jpg and 1.jpg both have frame number 1; keep one of them"),
            (["3.png", "3.jpg"], "3.jpg and 3.png both have frame number 3; keep one of them"),
            (["a7.jpg", "b07.png", "c8.jpg"], "a7.jpg and b07.png both have frame number 7; keep one of them"),
            (["0.jpg", "000.jpg"], "0.jpg and 000.jpg both have frame number 0; keep one of them"),
            (["1.jpg", "99999999999999999999999.jpg"], "99999999999999999999999.jpg: frame number 99999999999999999999999 is larger than 999999999"),
            (["1.jpg", "1000000000.jpg"], "1000000000.jpg: frame number 1000000000 is larger than 999999999"),
        ] {
            let folder = try makeFolder(names)
            let error = assertVideoError(.ambiguousFrames) { try FrameFolder(path: folder, load: loader()) }
            XCTAssertEqual(error?.description, folder + ": " + message)
        }
    }

    func testSecondsFromEvery() throws {
        let folder = try makeFolder((1...5).map { "\($0).jpg" })
        let frames = try drain(try FrameFolder(path: folder, every: 2, load: loader()))
        XCTAssertEqual(frames.map(\.second), [0, 2, 4, 6, 8])
        XCTAssertEqual(frames.map(\.index), [0, 1, 2, 3, 4])
        XCTAssertTrue(frames.allSatisfy { !$0.isNetworkInput })
    }

    func testSecondsFromFramesPerSecondKeepWholeSecondsExact() throws {
        let folder = try makeFolder((1...10).map { "\($0).jpg" })
        let frames = try drain(try FrameFolder(path: folder, framesPerSecond: 3, load: loader()))
        // frame n at (n − 1)/3: frames 4, 7, 10 are exactly 1, 2, 3 seconds.
        XCTAssertEqual(frames[3].second, 1)
        XCTAssertEqual(frames[6].second, 2)
        XCTAssertEqual(frames[9].second, 3)
        XCTAssertEqual(frames[1].second, 1.0 / 3.0, accuracy: 1e-12)
        let keys = MarkerPolicy(changesOnly: false).markers(
            frames.map {
                LabeledFrame(index: $0.index, second: $0.second, label: "A", confidence: 1, probabilities: [1])
            }
        ).map(\.second)
        XCTAssertEqual(keys, [0, 1, 2, 3])
    }

    func testCorruptFramesAreSkippedCountedAndKeepTheirSlot() throws {
        let folder = try makeFolder(["1.jpg", "2.jpg", "3.jpg", "4.jpg"])
        var reported: [SkippedFrame] = []
        let source = try FrameFolder(
            path: folder, load: loader(failing: ["2.jpg", "3.jpg"]),
            onSkip: { reported.append($0) })
        let frames = try drain(source)
        XCTAssertEqual(frames.map(\.second), [0, 3])
        XCTAssertEqual(source.skippedFrames.count, 2)
        XCTAssertEqual(reported, source.skippedFrames)
        XCTAssertEqual(source.skippedFrames.map(\.second), [1, 2])
        XCTAssertEqual(source.skippedFrames[0].error.description, folder + "/2.jpg: corrupt JPEG data")
    }

    func testRealPicturesThroughImageLoader() throws {
        let folder = try makeTemporaryFolder(self)
        for (number, colour) in [(1, "red"), (2, "blue"), (10, "lime")] {
            try ffmpeg(["-f", "lavfi", "-i", "color=c=\(colour):size=64x48", "-frames:v", "1", "\(folder)/\(number).png"])
        }
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: folder + "/3.jpg"))
        let source = try FrameFolder(path: folder, every: 1)
        let frames = try drain(source)
        XCTAssertEqual(frames.map(\.second), [0, 1, 9])
        // ffmpeg's colour source goes through YUV, so pure colours come back a few steps off 255/0.
        let dominantChannels = frames.map { frame in
            (0..<3).filter { frame.image.pixels[$0] > 200 } + (0..<3).filter { frame.image.pixels[$0] > 50 && frame.image.pixels[$0] <= 200 }
        }
        XCTAssertEqual(dominantChannels, [[0], [2], [1]])
        XCTAssertEqual(frames[0].image.width, 64)
        XCTAssertEqual(source.skippedFrames.map(\.error.path), [folder + "/3.jpg"])
    }

    func testAllFramesCorruptIsAnError() throws {
        let folder = try makeFolder(["1.jpg", "2.jpg"])
        let source = try FrameFolder(path: folder, load: loader(failing: ["1.jpg", "2.jpg"]))
        assertVideoError(.noFrames) { try source.nextFrame() }
        XCTAssertNil(try source.nextFrame())
    }

    func testEmptyFolderIsAnError() throws {
        let folder = try makeFolder(["readme.txt"])
        let error = assertVideoError(.noFrames) { try FrameFolder(path: folder, load: loader()) }
        XCTAssertEqual(error?.description.hasPrefix(folder + ": no numbered frames"), true)
    }

    func testMissingFolderAndBadInterval() throws {
        assertVideoError(.fileNotFound) { try FrameFolder(path: "/nonexistent/frames", load: loader()) }
        let folder = try makeFolder(["1.jpg"])
        assertVideoError(.invalidArgument) { try FrameFolder(path: folder, every: 0, load: loader()) }
        assertVideoError(.invalidArgument) { try FrameFolder(path: folder, framesPerSecond: -1, load: loader()) }
        for every in [1e-300, 0.0009, 86_401, 1e300, .infinity, .nan] {
            assertVideoError(.invalidArgument) { try FrameFolder(path: folder, every: every, load: loader()) }
        }
        for rate in [1e300, 1001, 1e-300, 1.0 / 86_401, .nan] {
            assertVideoError(.invalidArgument) { try FrameFolder(path: folder, framesPerSecond: rate, load: loader()) }
        }
        // The extremes allowed still give finite times whose whole seconds fit a marker key.
        let far = try makeFolder(["1.jpg", "999999999.jpg"])
        let frames = try drain(try FrameFolder(path: far, every: 86_400, load: loader()))
        XCTAssertEqual(frames.last?.second, 999_999_998 * 86_400)
        XCTAssertEqual(
            MarkerPolicy(changesOnly: false).markers(
                frames.map {
                    LabeledFrame(index: $0.index, second: $0.second, label: "A", confidence: 1, probabilities: [1])
                }
            ).last?.second, 999_999_998 * 86_400)
    }

    func testCloseStopsTheSource() throws {
        let folder = try makeFolder(["1.jpg", "2.jpg"])
        let source = try FrameFolder(path: folder, load: loader())
        XCTAssertNotNil(try source.nextFrame())
        source.close()
        XCTAssertNil(try source.nextFrame())
    }
}
