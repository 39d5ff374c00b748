import FileFormats
import Foundation
import Phases
@testable import Video
import XCTest
import _TestSupport

/// `sync`'s rendering, read back: the output lasts the plan's frames and every output frame shows, in each cell,
/// the input frame the rule says (at each phase start, the input's own first frame of the phase; while holding,
/// its last frame of the phase).
final class SideBySideVideoTests: XCTestCase {
    private func timeline(_ name: String, _ bounds: [(Double, Double)], labels: [String] = ["address", "swing", "finish"]) -> PhaseTimeline {
        PhaseTimeline(video: name, order: labels, phases: zip(labels, bounds).map { PhaseTimeline.Phase(label: $0.0, start: $0.1.0, end: $0.1.1) })
    }

    private func plan(_ inputs: [SideBySideVideo.Input], _ timelines: [PhaseTimeline]) throws -> SyncPlan {
        try SyncPlan(
            inputs: zip(inputs, timelines).map { input, timeline in
                SyncPlan.Input(source: input.video, timeline: timeline, framesPerSecond: input.framesPerSecond, frameCount: input.frameCount)
            })
    }

    func testEveryPhaseStartsTogetherAndTheFasterInputHoldsItsLastFrame() throws {
        let folder = try makeTemporaryFolder(self)
        let tools = try requireTools()
        let a = folder + "/a.mp4", b = folder + "/b.mp4", output = folder + "/side.mp4"
        try RenderTestMedia.numberedVideo(a, frames: 50, rate: "25", folder: folder)
        try RenderTestMedia.numberedVideo(b, frames: 60, rate: "25", folder: folder)
        let inputs = try SideBySideVideo.probe(videos: [a, b], tools: tools)
        XCTAssertEqual(inputs.map(\.frameCount), [50, 60])
        let plan = try plan(inputs, [timeline("a", [(0.2, 0.8), (0.8, 1.6), (1.6, 2.0)]), timeline("b", [(0.4, 0.8), (0.8, 2.0), (2.0, 2.4)])])
        XCTAssertEqual(plan.outputFrameCount, 15 + 30 + 10)
        try SideBySideVideo.render(plan: plan, inputs: inputs, stack: .horizontal, audioInput: nil, to: output, tools: tools)
        let decoded = try RenderTestMedia.frames(of: output, folder: folder)
        XCTAssertEqual(decoded.width, 2 * RenderTestMedia.width)
        XCTAssertEqual(decoded.height, RenderTestMedia.height)
        XCTAssertEqual(decoded.frames.count, plan.outputFrameCount, "the sum over phases of the longest input's phase")
        // The rule, written out: in phase p, input i shows its first frame of p plus k, until its last frame of p.
        for (outputFrame, frame) in decoded.frames.enumerated() {
            let phase = try XCTUnwrap(plan.phases.last { $0.outputFirstFrame <= outputFrame })
            for (index, segment) in phase.segments.enumerated() {
                let expected = segment.firstFrame + min(outputFrame - phase.outputFirstFrame, segment.frameCount - 1)
                let shown = RenderTestMedia.number(in: frame, frameWidth: decoded.width, left: index * RenderTestMedia.width)
                XCTAssertEqual(shown, expected, "output frame \(outputFrame), input \(index + 1), phase \(phase.label)")
            }
        }
        // Phase starts, named: a's frames 5, 20, 40 and b's 10, 20, 50 on output frames 0, 15, 45.
        for (outputFrame, expected) in [(0, [5, 10]), (15, [20, 20]), (45, [40, 50])] {
            for (index, number) in expected.enumerated() {
                XCTAssertEqual(
                    RenderTestMedia.number(in: decoded.frames[outputFrame], frameWidth: decoded.width, left: index * RenderTestMedia.width), number)
            }
        }
        // The play-position bar: the bottom row's fill grows with the input's own frame (a at frame 5 of 50: 6/50 of
        // the width; b at its last frame of the output: all of it).
        let bottom = decoded.height - 1
        let aStart = RenderTestMedia.pixel(decoded.frames[0], frameWidth: decoded.width, 2, bottom)
        let aFurther = RenderTestMedia.pixel(decoded.frames[0], frameWidth: decoded.width, 40, bottom)
        XCTAssertGreaterThan(aStart.0, 150, "filled part light grey")
        XCTAssertLessThan(aFurther.0, 110, "the rest of the track dark grey")
        let bEnd = RenderTestMedia.pixel(decoded.frames[plan.outputFrameCount - 1], frameWidth: decoded.width, RenderTestMedia.width + 90, bottom)
        XCTAssertGreaterThan(bEnd.0, 150)
    }

    func testOtherFrameRatesAreResampledToTheFirstInputsAndTheLengthIsExact() throws {
        let folder = try makeTemporaryFolder(self)
        let tools = try requireTools()
        let a = folder + "/a.mp4", b = folder + "/b.mp4", c = folder + "/c.mp4", output = folder + "/grid.mkv"
        try RenderTestMedia.numberedVideo(a, frames: 50, rate: "25", audio: true, folder: folder)
        try RenderTestMedia.numberedVideo(b, frames: 60, rate: "30", folder: folder)
        try RenderTestMedia.numberedVideo(c, frames: 40, rate: "25", folder: folder)
        let inputs = try SideBySideVideo.probe(videos: [a, b, c], tools: tools)
        let plan = try plan(
            inputs,
            [
                timeline("a", [(0.2, 0.8), (0.8, 1.6), (1.6, 2.0)]), timeline("b", [(0.4, 0.8), (0.8, 1.6), (1.6, 2.0)]),
                timeline("c", [(0, 0.4), (0.4, 1.2), (1.2, 1.6)]),
            ])
        XCTAssertEqual(plan.phases[1].segments[1].frameCount, 24)
        XCTAssertEqual(plan.phases[1].segments[1].outputFrameCount, 20)
        try SideBySideVideo.render(plan: plan, inputs: inputs, stack: .horizontal, audioInput: 0, to: output, tools: tools)
        let probe = try VideoProbe.probe(path: output, tools: tools)
        XCTAssertTrue(probe.hasAudio)
        XCTAssertEqual(probe.baseFrameRate, 25)
        let decoded = try RenderTestMedia.frames(of: output, folder: folder)
        XCTAssertEqual(decoded.frames.count, plan.outputFrameCount)
        XCTAssertEqual(decoded.width, 2 * RenderTestMedia.width, "three inputs make a 2 x 2 grid")
        XCTAssertEqual(decoded.height, 2 * RenderTestMedia.height)
        // The 25-fps inputs exactly, the 30-fps one within a frame, at every phase start.
        for phase in plan.phases {
            let frame = decoded.frames[phase.outputFirstFrame]
            XCTAssertEqual(RenderTestMedia.number(in: frame, frameWidth: decoded.width), phase.segments[0].firstFrame)
            XCTAssertEqual(RenderTestMedia.number(in: frame, frameWidth: decoded.width, top: RenderTestMedia.height), phase.segments[2].firstFrame)
            let resampled = RenderTestMedia.number(in: frame, frameWidth: decoded.width, left: RenderTestMedia.width)
            XCTAssertLessThanOrEqual(abs(resampled - phase.segments[1].firstFrame), 1, "\(phase.label)")
        }
    }

    func testAnInputWithoutVideoOrSoundIsRefusedWithALine() throws {
        let folder = try makeTemporaryFolder(self)
        let tools = try requireTools()
        let sound = folder + "/sound.m4a", a = folder + "/a.mp4"
        try ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-c:a", "aac", sound])
        let error = assertVideoError(.noVideoStream) { try SideBySideVideo.probe(videos: [sound], tools: tools) }
        XCTAssertEqual(error?.reason, "no video stream (it has only audio)")
        try RenderTestMedia.numberedVideo(a, frames: 20, rate: "25", folder: folder)
        let inputs = try SideBySideVideo.probe(videos: [a, a], tools: tools)
        let plan = try plan(inputs, [timeline("a", [(0, 0.2), (0.2, 0.4), (0.4, 0.8)]), timeline("a", [(0, 0.2), (0.2, 0.4), (0.4, 0.8)])])
        let silent = assertVideoError(.invalidArgument) {
            try SideBySideVideo.render(plan: plan, inputs: inputs, stack: .vertical, audioInput: 1, to: folder + "/o.mp4", tools: tools)
        }
        // The CLI words the hint: "(--audio)" (SyncTraceCommandTests).
        XCTAssertEqual(silent?.reason, "has no sound to take")
        XCTAssertEqual(silent?.hint, .chooseInputWithSound)
        assertVideoError(.invalidArgument) {
            try SideBySideVideo.render(plan: plan, inputs: inputs, stack: .vertical, audioInput: nil, to: folder + "/o.webm", tools: tools)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/o.mp4"))
    }

    /// The phase names drawn: whatever a name holds, the filter graph is the one a plain name gives (the name is
    /// never in it), and the name's file is one drawable line without control or bidi characters.
    func testPhaseNamesNeverReachTheFilterGraphAndAreDrawnAsOneIsolatedLine() throws {
        let probe = VideoProbe(width: 96, height: 64, duration: 2, hasAudio: true, baseFrameRate: 25)
        let inputs = [
            SideBySideVideo.Input(video: "a.mp4", probe: probe, frameCount: 50, framesPerSecond: 25),
            SideBySideVideo.Input(video: "b.mp4", probe: probe, frameCount: 50, framesPerSecond: 25),
        ]
        func graph(_ label: String) throws -> (String, [(name: String, text: String)]) {
            let order = [label, "plain"]
            let timeline = PhaseTimeline(
                video: "a.mp4", order: order, phases: [.init(label: label, start: 0, end: 1), .init(label: "plain", start: 1, end: 2)])
            let plan = try SyncPlan(inputs: inputs.map { SyncPlan.Input(source: $0.video, timeline: timeline, framesPerSecond: 25, frameCount: 50) })
            let files = SideBySideVideo.phaseNameFiles(plan: plan)
            let layout = SideBySideVideo.Layout(sizes: inputs.map(\.probe.uprightSize))
            return (
                SideBySideVideo.filterGraph(
                    plan: plan, inputs: inputs, layout: layout, stack: .horizontal, audioInput: 0,
                    nameFiles: files.map(\.name), font: "/font.ttf"), files
            )
        }
        let (plainGraph, _) = try graph("address")
        HostileNames.check("sync's phase names", includingNUL: true) { label in
            guard label != "plain" else { return nil }  // an order names a phase once
            let (hostileGraph, files) = try graph(label)
            guard hostileGraph == plainGraph else { return "the filter graph changed with the name" }
            let text = files[0].text
            if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                return "a control character reaches drawtext: \(HostileNames.escaped(text))"
            }
            if text.unicodeScalars.contains(where: HostileNames.isBidiControl) {
                return "a bidi control reaches drawtext: \(HostileNames.escaped(text))"
            }
            return nil
        }
    }
}
