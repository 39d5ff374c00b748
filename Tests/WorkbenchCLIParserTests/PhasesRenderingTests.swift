import Workbench
import XCTest
import _TestSupport
@testable import WorkbenchCLI

/// `phases`' terminal lines keep one field per value whatever a phase is called.
final class PhasesRenderingTests: XCTestCase {
    private func timeline(_ name: String) -> PhaseTimeline {
        PhaseTimeline(
            video: "videos/\(name).mp4", order: [name, "plain"],
            phases: [.init(label: name, start: 0.5, end: 1.25, confidence: 0.875), .init(label: "plain", start: 1.25, end: 3, confidence: 0.5)])
    }

    func testTerminalLinesKeepOneFieldPerNameWhateverTheName() {
        HostileNames.check("phase lines", includingNUL: true) { name in
            let lines = PhasesRendering.lines(timeline(name))
            guard lines.count == 2, lines[1] == "plain\t1.250\t3.000\t0.500" else { return "the second line changed: \(lines)" }
            // What Console writes: the whole line in its terminal form, tabs and line feeds kept.
            let shown = DisplayText.terminal(lines[0], keepingLayout: true)
            if let problem = HostileNames.terminalProblem(shown) { return problem }
            guard !shown.contains("\n") else { return "the line breaks" }
            let fields = shown.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 4, fields[1...] == ["0.500", "1.250", "0.875"] else {
                return "fields \(fields.count): \(HostileNames.escaped(shown))"
            }
            return nil
        }
    }
}
