import Foundation
import ImageCodecs
@testable import Video
import XCTest

/// Issue 45, item 9: one rule for an output named through a symbolic link, for every writer of videos as for
/// `OutputFile`: the link is written through, its target replaced whole (a temporary file beside the target,
/// renamed over it), and the link left pointing where it did. Decoys in a scratch folder only.
final class OutputLinkTests: XCTestCase {
    /// Renders through `out/link.mp4 → ../target/real.mp4` (an old decoy file there, or none yet) and checks the
    /// rule: the link is still the same link, the target is now a video ffprobe reads, and no temporary file is
    /// left in either folder.
    private func assertWrittenThroughLink(
        _ what: String, file: StaticString = #filePath, line: UInt = #line,
        render: (_ folder: String, _ output: String, _ tools: ExternalTools) throws -> Void
    ) throws {
        let tools = try requireTools()
        for targetExists in [true, false] {
            let folder = try makeTemporaryFolder(self)
            try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: folder + "/target", withIntermediateDirectories: true)
            let link = folder + "/out/link.mp4", target = folder + "/target/real.mp4"
            if targetExists { try Data("old decoy\n".utf8).write(to: URL(fileURLWithPath: target)) }
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../target/real.mp4")
            try render(folder, link, tools)
            let context = "\(what), target \(targetExists ? "there" : "not there yet")"
            XCTAssertEqual(
                try FileManager.default.destinationOfSymbolicLink(atPath: link), "../target/real.mp4", "\(context): still the link",
                file: file, line: line)
            XCTAssertNoThrow(try VideoProbe.probe(path: target, tools: tools), "\(context): the target is the video", file: file, line: line)
            for place in ["/out", "/target"] {
                let hidden = try FileManager.default.contentsOfDirectory(atPath: folder + place).filter { $0.hasPrefix(".") }
                XCTAssertEqual(hidden, [], "\(context): no temporary file in \(place)", file: file, line: line)
            }
        }
    }

    /// A short grey video in `folder`.
    private func grey(_ folder: String) throws -> String {
        let video = folder + "/grey.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "color=c=0x303030:s=64x48:r=25:d=0.4", "-c:v", "libx264", "-pix_fmt", "yuv420p", video])
        return video
    }

    func testTraceAndSyncRendersWriteThroughTheLink() throws {
        // TracedVideo renders through RenderTarget, as SideBySideVideo (sync) and PagePreview do.
        try assertWrittenThroughLink("trace") { folder, output, tools in
            let video = try grey(folder)
            let probe = try VideoProbe.probe(path: video, tools: tools)
            let overlay = TracedVideo.OverlaySequence(x: 0, y: 0, width: 4, height: 4, firstFrame: 0, count: 1, framesPerSecond: 25) { _ in
                [UInt8](repeating: 255, count: 64)
            }
            try TracedVideo.render(video: video, probe: probe, frameCount: 10, overlay: overlay, to: output, tools: tools)
        }
    }

    func testReviewCopiesBoxesAndReelsWriteThroughTheLink() throws {
        try assertWrittenThroughLink("label --annotate") { folder, output, tools in
            try AnnotatedVideo.render(video: try grey(folder), captions: [.init(second: 0, text: "cat")], to: output, tools: tools)
        }
        try assertWrittenThroughLink("detect --annotate") { folder, output, tools in
            let box = BoxOverlay.Box(left: 2, top: 2, width: 10, height: 10, text: "person 0.90")
            try BoxOverlay.renderVideo(try grey(folder), samples: [.init(second: 0, boxes: [box])], to: output, tools: tools)
        }
        try assertWrittenThroughLink("highlights") { folder, output, tools in
            try HighlightReel.render(
                clips: [Clip(video: try grey(folder), start: 0, end: 0.3)], to: output,
                format: HighlightFormat(width: 64, height: 48, framesPerSecond: 25), tools: tools)
        }
    }

    func testAnnotatedPicturesWriteThroughTheLink() throws {
        let tools = try requireTools()
        let folder = try makeTemporaryFolder(self)
        let link = folder + "/copy.png", target = folder + "/real.png"
        try Data("old decoy\n".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.png")
        let image = RGBImage(width: 20, height: 20, pixels: [UInt8](repeating: 90, count: 20 * 20 * 3))
        try BoxOverlay.renderPicture(image, boxes: [], name: "p.png", to: link, tools: tools)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "real.png")
        let written = try ImageLoader.load(path: target, options: DecodeOptions(minimumCropSide: nil))
        XCTAssertEqual([written.width, written.height], [20, 20])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".") }, [])
    }
}
