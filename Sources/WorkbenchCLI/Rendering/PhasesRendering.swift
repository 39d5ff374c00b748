import Foundation
import Workbench

/// How `workbench phases` shows what it did, beside the phases themselves.
enum PhasesRendering {
    /// The result as terminal lines, one per phase, tab-separated: label, start and end in seconds, confidence. The
    /// label is in its terminal form (`DisplayText.terminal`: a tab, line feed, control or bidi character in it is
    /// written as an escape), so it stays one field and cannot reorder or hide the numbers beside it.
    static func lines(_ timeline: PhaseTimeline) -> [String] {
        timeline.phases.map { phase in
            let confidence = phase.confidence.map { String(format: "%.3f", $0) } ?? "-"
            return "\(DisplayText.terminal(phase.label))\t\(String(format: "%.3f", phase.start))\t\(String(format: "%.3f", phase.end))\t\(confidence)"
        }
    }

    /// One line for stderr: what was classified and what was written.
    static func summary(_ result: PhasesWorkflow.Result, request: PhasesWorkflow.Request) -> String {
        var line =
            "\(result.sampleCount) frames classified (one every \(String(format: "%g", result.every)) s, phases of at least "
            + "\(result.minimumSamples) frame\(result.minimumSamples == 1 ? "" : "s")) in \(String(format: "%.1f", result.seconds)) s"
        let written = [request.output, request.subtitles, request.page].compactMap { $0 }
        if !written.isEmpty { line += "; wrote " + written.joined(separator: ", ") }
        return line
    }
}
