import Foundation
import Workbench

/// How `workbench phases` shows what it did, beside the phases themselves.
enum PhasesRendering {
    /// One line for stderr: what was classified and what was written.
    static func summary(_ result: PhasesWorkflow.Result, request: PhasesWorkflow.Request) -> String {
        var line = "\(result.sampleCount) frames classified (one every \(String(format: "%g", result.every)) s, phases of at least "
            + "\(result.minimumSamples) frame\(result.minimumSamples == 1 ? "" : "s")) in \(String(format: "%.1f", result.seconds)) s"
        let written = [request.output, request.subtitles, request.page].compactMap { $0 }
        if !written.isEmpty { line += "; wrote " + written.joined(separator: ", ") }
        return line
    }
}
