import Foundation
import XCTest
import ImageCodecs
@testable import Video

/// File names ffmpeg would read as URLs (`concat:`, `http:`) are opened as the local files they name.
final class MediaPathTests: XCTestCase {
    /// A scratch folder made the working directory for the test (ffmpeg reads a protocol only at the start of a
    /// relative name), holding `small.mp4` (32×32, 3 s) and copies of `wide.mp4` (64×48, 1 s) under hostile names.
    private func hostileFolder() throws -> String {
        let folder = try makeTemporaryFolder(self)
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=5:duration=1", "-c:v", "mpeg4", folder + "/wide.mp4"])
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=32x32:rate=5:duration=3", "-c:v", "mpeg4", folder + "/small.mp4"])
        for name in ["concat:small.mp4", "http:x.mp4", "pipe:0.mp4"] {
            try FileManager.default.copyItem(atPath: folder + "/wide.mp4", toPath: folder + "/" + name)
        }
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder))
        addTeardownBlock { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        return folder
    }

    func testURLIsTheAbsolutePathBehindFile() {
        XCTAssertEqual(MediaPath.url("/a/concat:b.mp4"), "file:/a/concat:b.mp4")
        XCTAssertEqual(MediaPath.url("http:x.mp4"), "file:" + FileManager.default.currentDirectoryPath + "/http:x.mp4")
    }

    func testProbeReadsTheFileNotTheProtocol() throws {
        let tools = try requireTools()
        _ = try hostileFolder()
        for name in ["concat:small.mp4", "http:x.mp4", "pipe:0.mp4"] {
            // Read as a URL, concat:small.mp4 is small.mp4 (32 wide); http:x.mp4 goes to the network and fails.
            let probe = try VideoProbe.probe(path: name, tools: tools)
            XCTAssertEqual(probe.width, 64, name)
            XCTAssertEqual(probe.height, 48, name)
        }
    }

    func testFramesAndRenderingReadAndWriteTheFiles() throws {
        let tools = try requireTools()
        let folder = try hostileFolder()
        for name in ["concat:small.mp4", "http:x.mp4"] {
            let source = try VideoFrameSource(path: name, every: 0.2, options: networkOptions, tools: tools)
            var frames = 0
            while try source.nextFrame() != nil { frames += 1 }
            source.close()
            XCTAssertEqual(frames, 5, "\(name): a 1 s movie at 5 fps, not small.mp4's 3 s")
        }
        // Outputs with such names are written where they are named, and clips are cut from the named file.
        try HighlightReel.render(
            clips: [Clip(video: "concat:small.mp4", start: 0, end: 1)], to: "http:reel.mp4",
            format: HighlightFormat(width: 64, height: 48, framesPerSecond: 5), tools: tools)
        XCTAssertEqual(try VideoProbe.probe(path: folder + "/http:reel.mp4", tools: tools).width, 64)
        try AnnotatedVideo.render(video: "http:x.mp4", captions: [.init(second: 0, text: "a")], to: "concat:out.mp4", tools: tools)
        let annotated = try VideoProbe.probe(path: folder + "/concat:out.mp4", tools: tools)
        XCTAssertEqual(annotated.width, 64)
        XCTAssertEqual(annotated.duration ?? 0, 1, accuracy: 0.3)
    }
}
