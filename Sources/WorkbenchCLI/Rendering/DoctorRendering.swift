import Foundation
import Workbench

/// Renders a doctor run's progress on stderr: the training run's scan and features, then the hashes.
final class DoctorProgress {
    private let training = TrainingProgress(verbose: false)
    private var bar: ProgressBar?

    func render(_ event: DoctorEvent) {
        switch event {
        case .training(let event): training.render(event)
        case .hashing(let done, let total):
            if bar == nil { bar = ProgressBar(total: total, label: "hashes") }
            bar?.update(completed: done)
            if done == total { bar?.finish() }
        case .searchingNeighbours: bar?.finish()
        }
    }
}

/// Doctor's results on stdout: a short summary (counts per kind, the worst few of each), or the report as JSON.
enum DoctorRendering {
    /// Findings shown per kind in the summary.
    static let shownPerKind = 5

    static func render(_ result: DoctorResult, json: Bool) throws {
        let report = result.report
        if json {
            Console.output(try ReportJSON.text(report))
            if let list = result.undoListPath { Console.warn("moved \(result.moved.count) file(s); undo list: \(list)") }
            return
        }
        for line in lines(report) { Console.outputLine(line) }
        if let page = result.pagePath { Console.outputLine("Explore the findings: \(page)") }
        if let list = result.undoListPath {
            Console.outputLine("moved \(result.moved.count) file(s); to put them back: workbench doctor --undo \(list)")
        }
    }

    /// The summary's lines.
    static func lines(_ report: DoctorReport) -> [String] {
        let counts = report.counts
        let pictures = report.labels.reduce(0) { $0 + $1.training + $1.validation + $1.testing }
        var lines = [
            "\(pictures) pictures, \(report.labels.count) labels: \(counts.labelIssues) may be in the wrong folder, "
                + "\(counts.exactCopies) exact and \(counts.nearCopies) near copies (\(counts.leaks) across splits), \(counts.outliers) outliers"
        ]
        if !report.labelIssues.isEmpty {
            lines.append("likely in the wrong folder:")
            for issue in report.labelIssues.prefix(shownPerKind) {
                lines.append(
                    "  \(issue.path) (\(issue.split), folder \(issue.label)): looks like \(issue.suggestedLabel) "
                        + "(\(percent(issue.confidence)); \(issue.label) \(percent(issue.selfConfidence)))")
            }
        }
        if !report.duplicates.isEmpty {
            lines.append("copies:")
            for duplicate in report.duplicates.prefix(shownPerKind) {
                let files = zip(duplicate.paths, duplicate.splits).map { "\($0) (\($1))" }.joined(separator: " = ")
                let kind = duplicate.kind == .exact ? "exact" : "near, similarity \(String(format: "%.3f", duplicate.similarity))"
                lines.append("  \(duplicate.leak ? "leak: " : "")\(files) [\(kind)]")
            }
        }
        if !report.outliers.isEmpty {
            lines.append("outliers:")
            for outlier in report.outliers.prefix(shownPerKind) {
                lines.append("  \(outlier.path) (\(outlier.split), \(outlier.label)): score \(String(format: "%.1f", outlier.score))")
            }
        }
        for warning in report.warnings { lines.append("warning: \(warning)") }
        for problem in report.unreadable { lines.append("unreadable: \(problem.path): \(problem.reason)") }
        return lines
    }

    private static func percent(_ value: Double) -> String { String(format: "%.0f %%", value * 100) }
}
