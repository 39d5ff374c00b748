import Foundation
import Workbench
import XCTest
import _TestSupport

/// `PhasesWorkflow`'s pure parts: the default sampling, and every writer of phase names (WebVTT, the page) under
/// hostile names; the terminal lines are the CLI's (`WorkbenchCLIParserTests/PhasesRenderingTests`). The run itself goes through the binary in `WorkbenchCLITests/PhasesCommandTests`.
final class PhasesWorkflowTests: XCTestCase {
    func testDefaultSamplingIsEveryFrameUpTo25AndEveryNthAbove() {
        XCTAssertEqual(PhaseSampling.defaultInterval(frameRate: 25), 0.04, accuracy: 1e-12)
        XCTAssertEqual(PhaseSampling.defaultInterval(frameRate: 24), 1 / 24, accuracy: 1e-12)
        XCTAssertEqual(PhaseSampling.defaultInterval(frameRate: 60), 0.05, accuracy: 1e-12, "every third frame")
        XCTAssertEqual(PhaseSampling.defaultInterval(frameRate: 30), 1 / 15, accuracy: 1e-12, "every second frame")
        XCTAssertEqual(PhaseSampling.defaultInterval(frameRate: 30_000 / 1001), 2 * 1001 / 30_000, accuracy: 1e-12)
        XCTAssertEqual(PhaseSampling.defaultInterval(frameRate: nil), 0.04, accuracy: 1e-12)
    }

    private func timeline(_ name: String) -> PhaseTimeline {
        PhaseTimeline(
            video: "videos/\(name).mp4", order: [name, "plain"],
            phases: [.init(label: name, start: 0.5, end: 1.25, confidence: 0.875), .init(label: "plain", start: 1.25, end: 3, confidence: 0.5)])
    }

    func testSubtitlesStayValidAndIsolateEveryName() {
        HostileNames.check("phase WebVTT", includingNUL: true) { name in
            let cues: [WebVTTFile.Cue]
            do {
                cues = try WebVTTFile.parse(PhasesWorkflow.subtitles(timeline(name)))
            } catch {
                return "the file does not parse: \(error)"
            }
            guard cues.count == 2, cues[1].text == "\u{2068}plain\u{2069} (50 %)" else { return "the cues changed: \(cues.count)" }
            guard cues[0].text.hasSuffix("\u{2069} (88 %)") else { return "the percentage is not after the isolated name" }
            return HostileNames.bidiProblem(cues[0].text)
        }
    }

    func testThePageKeepsItsMarkupWhateverTheNameOfPhaseVideoOrModel() {
        HostileNames.check("phases page", count: 120, includingNUL: true) { name in
            let plain = HostileNames.tagSequence(
                PhasesWorkflow.page(
                    timeline(String(repeating: "x", count: name.count)), duration: 3, every: 0.04,
                    modelPath: String(repeating: "x", count: name.count) + ".wbmodel"))
            let html = PhasesWorkflow.page(timeline(name), duration: 3, every: 0.04, modelPath: name + ".wbmodel")
            guard HostileNames.tagSequence(html) == plain else { return "the markup differs from a plain name's" }
            return HostileNames.htmlBidiProblem(html)
        }
    }
}
