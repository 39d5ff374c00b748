import Foundation
import Workbench

/// What `train` prints for a detector: the report as tables (or JSON with `--json`) on stdout, timings on stderr.
enum DetectorTrainingRendering {
    static func render(_ outcome: DetectorTrainingWorkflowResult, json: Bool) throws {
        if json {
            Console.output(try ReportJSON.text(outcome.report))
        } else {
            Console.output(tables(outcome.report))
        }
        if outcome.result.learnedNothing {
            Console.warn(
                "warning: held-out mAP@0.5 was 0 at every epoch: nothing was learned that the "
                    + "\(outcome.result.heldOutImageCount) held-out pictures can show, and the stored threshold means little "
                    + "(the model is written all the same); annotate more pictures or train longer (--epochs)")
        }
        if let timings = outcome.report.timings {
            // Fine-tuning that keeps the frozen model is followed by the refit: then both are named.
            let phases =
                [("maps", timings.maps), ("head", timings.training)]
                + [("fine-tuning", timings.fineTuning), ("refit", timings.refit)]
                .compactMap { name, seconds in seconds.map { (name, $0) } }
            Console.warn(
                (phases.map { String(format: "\($0.0) %.1f s", $0.1) } + [String(format: "total %.1f s", phases.reduce(0) { $0 + $1.1 })])
                    .joined(separator: ", "))
        }
        // With --json, stdout is the report alone; the paths still come last, on stderr.
        for line in (outcome.pagePath.map { ["report written to \($0)"] } ?? []) + [
            ReportRendering.modelWritten(outcome.modelPath, replaced: outcome.replacedModel)
        ] {
            if json { Console.warn(line) } else { Console.outputLine(line) }
        }
    }

    /// Counts, the choice (epoch and threshold), then the held-out and testing scores.
    static func tables(_ report: DetectorTrainingReport) -> String {
        var text =
            "Detector: \(report.labels.count) label\(report.labels.count == 1 ? "" : "s"), "
            + "\(report.trainingImages) training and \(report.heldOutImages) held-out pictures\(report.refit == nil ? "" : " (then all refitted)"), "
            + "\(report.settings.inputSide)×\(report.settings.inputSide) input\n"
        text +=
            "Chosen on the held-out pictures: epoch \(report.chosenEpoch) of \(report.settings.epochs), "
            + String(format: "score threshold %.3f (best F1)\n", report.threshold)
        if let fineTuning = report.fineTuning {
            let frozen = String(format: "%.3f", fineTuning.frozenHeldOutMeanAveragePrecision50)
            if fineTuning.chosenEpoch > 0 {
                let kept = String(format: "%.3f", fineTuning.epochs[fineTuning.chosenEpoch - 1].heldOutMeanAveragePrecision50)
                text +=
                    "Fine-tuned blocks \(fineTuning.firstTrainedBlock)-15 with the head: epoch \(fineTuning.chosenEpoch) of "
                    + "\(fineTuning.epochs.count) kept, held-out mAP@0.5 \(frozen) frozen -> \(kept)\n"
            } else {
                text += "Fine-tuning: no epoch beat the frozen head's held-out mAP@0.5 (\(frozen)); the frozen model is kept\n"
            }
        }
        if let refit = report.refit {
            text +=
                "Refitted on all \(refit.pictures) training pictures for \(refit.epochs) epochs "
                + "(\(refit.length.phrase)); the held-out scores below are "
                + "the chosen epoch's, before the refit\n"
        }
        text += "\n"
        text += scores(report.heldOut, title: "Held-out (where epoch and threshold were chosen)")
        if let testing = report.testing { text += "\n" + scores(testing, title: "Testing") }
        return text
    }

    /// One table: a row per label and an overall row, the objects, the boxes reported at the threshold, AP@0.5,
    /// AP@0.5:0.95, precision, recall and their F1 at the threshold (`train`'s sections, `evaluate` and `inspect`
    /// print it alike), then the candidate boxes the APs rank. A dash (—) is a value that is undefined: AP with nothing
    /// to find, precision (and so F1) with no box at the threshold. A report written before the reported boxes were
    /// counted shows a dash there too.
    static func scores(_ scores: DetectorScores, title: String) -> String {
        func number(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "—" }
        let names = scores.labels.map { DisplayText.terminal($0.label) }
        let width = max(8, names.map(\.count).max() ?? 0)
        func row(_ name: String, _ boxes: Int, _ found: Int?, _ ap50: Double?, _ ap: Double?, _ precision: Double?, _ recall: Double) -> String {
            func right(_ text: String, _ columns: Int) -> String { String(repeating: " ", count: max(0, columns - text.count)) + text }
            // The harmonic mean; nothing right is an F1 of 0, not a division by zero; no box reported and nothing
            // to find leaves it undefined.
            let f1 =
                precision.map { precision in precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0 } ?? (boxes > 0 ? 0 : nil)
            return name.padding(toLength: width, withPad: " ", startingAt: 0) + right(String(boxes), 7) + right(found.map(String.init) ?? "—", 10)
                + right(number(ap50), 8) + right(number(ap), 11) + right(number(precision), 11) + right(number(recall), 8) + right(number(f1), 7)
                + "\n"
        }
        var text = "\(title): \(scores.imageCount) pictures, \(scores.objectCount) boxes\n"
        text += "label".padding(toLength: width, withPad: " ", startingAt: 0) + "  boxes  reported  AP@0.5  AP@.5:.95  precision  recall     F1\n"
        for (name, label) in zip(names, scores.labels) {
            text += row(
                name, label.groundTruthCount, label.reportedBoxes, label.averagePrecision50, label.averagePrecision, label.precision,
                label.recall)
        }
        text += row(
            "all", scores.objectCount, scores.reportedBoxes, scores.meanAveragePrecision50, scores.meanAveragePrecision, scores.precision,
            scores.recall)
        if let candidates = scores.candidateBoxes {
            text += String(
                format: "reported: the boxes scoring at least %.3f (what detect shows); the APs rank all \(candidates) candidates at any score\n",
                scores.threshold)
        }
        return text
    }
}
