import FileFormats
import Foundation
import ImageCodecs
import Phases
@testable import Video
import XCTest
import _TestSupport

/// Issue 45, defect 4: every render works when `TMPDIR` (and the font's path) is full of the syntax of ffmpeg's
/// filter graphs, sendcmd scripts and image-sequence patterns, and nothing but its output appears anywhere: no file
/// a filter injected through the temporary folder's path (`metadata=…:file=`), no work folder left behind.
final class HostileTemporaryFolderTests: XCTestCase {
    /// Every character that is syntax somewhere in what ffmpeg is given: `,` `;` `[` `]` split a graph, `:` `=`
    /// `'` `\` an option string, `%` a sequence pattern or drawtext's expansion, a space a sendcmd token.
    static let hostileName = "t,x=1:f=y;[a]'b %d %% c\\d"

    func testEveryRenderWorksWithFilterSyntaxInTheTemporaryFolderAndTheFont() throws {
        let tools = try requireTools()
        let scratch = try makeTemporaryFolder(self)
        let inputs = scratch + "/inputs", outputs = scratch + "/outputs", temporary = scratch + "/" + Self.hostileName
        for folder in [inputs, outputs, temporary] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let a = inputs + "/a.mp4", b = inputs + "/b.mp4"
        try RenderTestMedia.numberedVideo(a, frames: 20, rate: "10", audio: true, folder: inputs)
        try RenderTestMedia.numberedVideo(b, frames: 20, rate: "10", folder: inputs)
        let font = temporary + "/font " + Self.hostileName + ".ttf"
        try FileManager.default.copyItem(atPath: AnnotatedVideo.defaultFont, toPath: font)

        let previous = ProcessInfo.processInfo.environment["TMPDIR"]
        setenv("TMPDIR", temporary, 1)
        defer { if let previous { setenv("TMPDIR", previous, 1) } else { unsetenv("TMPDIR") } }
        XCTAssertTrue(FileManager.default.temporaryDirectory.path.hasPrefix(temporary), "TMPDIR is read at each use")

        let box = BoxOverlay.Box(left: 10, top: 10, width: 30, height: 20, text: "person 0.9")
        let samples = [BoxOverlay.Sample(second: 0, boxes: [box]), BoxOverlay.Sample(second: 1, boxes: [])]
        try BoxOverlay.renderVideo(a, samples: samples, to: outputs + "/annotated.mp4", font: font, tools: tools)
        try BoxOverlay.renderVideo(a, samples: samples, start: 0.5, end: 1.5, to: outputs + "/clip.mp4", font: font, tools: tools)
        let picture = RGBImage(width: 64, height: 48, pixels: [UInt8](repeating: 90, count: 64 * 48 * 3))
        try BoxOverlay.renderPicture(picture, boxes: [box], name: "picture.png", to: outputs + "/picture.png", font: font, tools: tools)
        try AnnotatedVideo.render(video: a, captions: [.init(second: 0, text: "cat 0.9")], to: outputs + "/labelled.mp4", font: font, tools: tools)
        try HighlightReel.render(
            clips: [Clip(video: a, start: 0, end: 1), Clip(video: b, start: 0.5, end: 1.5)], to: outputs + "/reel.mp4", tools: tools)

        let probed = try SideBySideVideo.probe(videos: [a, b], tools: tools)
        let timelines = [(0.0, 0.8, 2.0), (0.2, 1.2, 1.8)].map { bounds in
            PhaseTimeline(
                video: "v", order: ["address", "swing"],
                phases: [.init(label: "address", start: bounds.0, end: bounds.1), .init(label: "swing", start: bounds.1, end: bounds.2)])
        }
        let plan = try SyncPlan(
            inputs: zip(probed, timelines).map {
                SyncPlan.Input(source: $0.0.video, timeline: $0.1, framesPerSecond: $0.0.framesPerSecond, frameCount: $0.0.frameCount)
            })
        try SideBySideVideo.render(plan: plan, inputs: probed, stack: .horizontal, audioInput: 0, to: outputs + "/side.mp4", font: font, tools: tools)

        let overlay = TracedVideo.OverlaySequence(x: 0, y: 0, width: 8, height: 8, firstFrame: 2, count: 3, framesPerSecond: 10) { _ in
            [UInt8](repeating: 255, count: 8 * 8 * 4)
        }
        let probe = try VideoProbe.probe(path: a, tools: tools)
        try TracedVideo.render(video: a, probe: probe, frameCount: 20, overlay: overlay, to: outputs + "/traced.mp4", tools: tools)

        let written = try FileManager.default.contentsOfDirectory(atPath: outputs).sorted()
        XCTAssertEqual(written, ["annotated.mp4", "clip.mp4", "labelled.mp4", "picture.png", "reel.mp4", "side.mp4", "traced.mp4"])
        for name in written where name.hasSuffix(".mp4") {
            XCTAssertGreaterThan(try VideoProbe.probe(path: outputs + "/" + name, tools: tools).width, 0, name)
        }
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: temporary), [URL(fileURLWithPath: font).lastPathComponent], "no work folder left")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: inputs).sorted(), ["a.mp4", "b.mp4"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch).sorted(), ["inputs", "outputs", Self.hostileName].sorted())
    }
}
