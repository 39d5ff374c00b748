import Foundation
import Workbench

/// Plain-text tables for people; `--json` output bypasses these.
enum ReportRendering {
    /// Left-aligned first column, right-aligned others, two spaces apart.
    static func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n"
    }

    static func percent(_ fraction: Double) -> String { String(format: "%.1f %%", fraction * 100) }

    static func counts(_ counts: [TrainingReport.LabelCounts]) -> String {
        let total = counts.reduce((0, 0, 0)) { ($0.0 + $1.training, $0.1 + $1.validation, $0.2 + $1.testing) }
        return table(header: ["label", "training", "validation", "testing"],
                     rows: counts.map { [$0.label, "\($0.training)", "\($0.validation)", "\($0.testing)"] }
                        + [["total", "\(total.0)", "\(total.1)", "\(total.2)"]])
    }

    static func accuracies(_ report: TrainingReport) -> String {
        var rows = [["training", percent(report.training.accuracy), "\(report.training.count)"]]
        rows.append(report.validation.count > 0 ? ["validation", percent(report.validation.accuracy), "\(report.validation.count)"]
                                                : ["validation", "-", "0"])
        rows.append(report.testingEvaluation != nil ? ["testing", percent(report.testing.accuracy), "\(report.testing.count)"]
                                                    : ["testing", "-", "0"])
        return table(header: ["", "accuracy", "images"], rows: rows)
    }

    /// The evaluation of one split: confusion matrix, per-label metrics, misclassified files.
    static func evaluation(_ evaluation: TrainingReport.SplitEvaluation, labels: [String], title: String) -> String {
        var text = "\n\(title) confusion matrix (rows: true label, columns: predicted)\n"
        text += table(header: ["true \\ predicted"] + labels,
                      rows: labels.indices.map { [labels[$0]] + evaluation.confusionMatrix[$0].map { "\($0)" } })
        text += "\n"
        text += table(header: ["label", "precision", "recall", "F1", "images"],
                      rows: evaluation.perLabel.map {
                          [$0.label, String(format: "%.3f", $0.precision), String(format: "%.3f", $0.recall),
                           String(format: "%.3f", $0.f1), "\($0.support)"]
                      })
        if evaluation.misclassified.isEmpty {
            text += "\nno misclassified \(title.lowercased()) files\n"
        } else {
            text += "\nmisclassified \(title.lowercased()) files (\(evaluation.misclassified.count))\n"
            text += table(header: ["file", "true", "predicted", "confidence"],
                          rows: evaluation.misclassified.map {
                              [$0.path, $0.truth, $0.predicted, String(format: "%.2f", $0.confidence)]
                          })
        }
        return text
    }

    /// JSON text of any report value, keys sorted, indented. A value JSON cannot hold (NaN, an infinity) is an
    /// error, never a silently empty report.
    static func json<Value: Encodable>(_ value: Value) throws(WorkbenchError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
        } catch {
            throw WorkbenchError("cannot write the report as JSON: \(error)")
        }
    }
}
