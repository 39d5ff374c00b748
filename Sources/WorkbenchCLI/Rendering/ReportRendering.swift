import Foundation
import Workbench

/// Plain-text tables for people; `--json` output is `ReportJSON`'s.
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

    /// "model written to Drawings.wbmodel", saying so when it replaced the file that was there.
    static func modelWritten(_ path: String, replaced: Bool) -> String {
        "model written to \(path)" + (replaced ? " (it replaced the model file that was there)" : "")
    }

    /// Images per label and split. With cross-validation every training image is also held out once, so the
    /// validation column repeats the training one.
    static func counts(_ counts: [TrainingReport.LabelCounts], validationTitle: String = "validation") -> String {
        let total = counts.reduce((0, 0, 0)) { ($0.0 + $1.training, $0.1 + $1.validation, $0.2 + $1.testing) }
        return table(
            header: ["label", "training", validationTitle, "testing"],
            rows: counts.map { [$0.label, "\($0.training)", "\($0.validation)", "\($0.testing)"] }
                + [["total", "\(total.0)", "\(total.1)", "\(total.2)"]])
    }

    /// "validation (5-fold)", "validation (20 % held out)" or "validation": what the validation figures are.
    static func validationTitle(_ report: TrainingReport) -> String {
        guard let selection = report.selection else { return "validation" }
        if let folds = selection.folds { return "validation (\(folds)-fold)" }
        if selection.method == "validation folder" { return "validation" }
        return "validation (\(Int((report.settings.validationFraction * 100).rounded())) % held out)"
    }

    /// "78.2–99.2 %": a Wilson interval as the pages show it (`AccuracyInterval.percentText`).
    static func interval(_ interval: AccuracyInterval?) -> String {
        interval?.percentText ?? "-"
    }

    static func accuracies(_ report: TrainingReport) -> String {
        func row(_ title: String, _ summary: TrainingReport.SplitSummary, present: Bool) -> [String] {
            present ? [title, percent(summary.accuracy), interval(summary.interval), "\(summary.count)"] : [title, "-", "-", "0"]
        }
        return table(
            header: ["", "accuracy", "95 % interval", "images"],
            rows: [
                row("training", report.training, present: true),
                row(validationTitle(report), report.validation, present: report.validation.count > 0),
                row("testing", report.testing, present: report.testingEvaluation != nil),
            ])
    }

    /// One progress line of fine-tuning, for stderr.
    static func fineTuningProgress(_ step: FineTuningProgress) -> String {
        switch step {
        case .frozenHead(let accuracy, let heldOutImages, let trainingImages, let firstTrainedBlock, let epochs, let folds):
            let last = FineTuningSettings.maximumTrainedBlocks - 1
            let blocks = firstTrainedBlock == last ? "block \(last)" : "blocks \(firstTrainedBlock)-\(last)"
            let splits = folds > 1 ? ", choosing on \(folds) folds" : ""
            return "fine-tuning \(blocks), the final 1x1 convolution and the head on \(trainingImages) images for \(epochs) epochs\(splits)\n"
                + "frozen head: held-out accuracy \(percent(accuracy)) (\(heldOutImages) images)"
        case .epoch(let fold, let folds, let epoch, let epochs, let loss, let accuracy, let imagesPerSecond, let secondsLeft):
            let prefix = fold.map { "fold \($0)/\(folds) " } ?? ""
            return "\(prefix)epoch \(padded(epoch, to: epochs))/\(epochs)  loss \(String(format: "%.4f", loss))  held-out \(percent(accuracy))  "
                + "\(String(format: "%.1f", imagesPerSecond)) images/s  \(duration(secondsLeft)) left"
        case .refitEpoch(let refit, let refits, let epoch, let epochs, let loss, let imagesPerSecond, let secondsLeft):
            let which = refit.map { " \($0)/\(refits)" } ?? ""
            return "refit\(which) epoch \(padded(epoch, to: epochs))/\(epochs)  loss \(String(format: "%.4f", loss))  "
                + "\(String(format: "%.1f", imagesPerSecond)) images/s  \(duration(secondsLeft)) left"
        case .decision(let reason, let hint):
            return "decision: \(reason)\(hint.flatMap(ErrorWording.words) ?? "")"
        case .automaticChoice(_, let reason, let hint):
            return reason + (hint.flatMap(ErrorWording.words) ?? "")
        case .preparing(let done, let total), .rescoring(let done, let total):
            return "\(done)/\(total)"
        }
    }

    /// `number` right-aligned to the width of `last`.
    static func padded(_ number: Int, to last: Int) -> String {
        String(repeating: " ", count: max(0, String(last).count - String(number).count)) + String(number)
    }

    /// "1 min 05 s", "12 s".
    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 60 ? String(format: "%d min %02d s", whole / 60, whole % 60) : "\(whole) s"
    }

    /// What fine-tuning gained over the frozen head, or that the frozen model was kept; empty without fine-tuning.
    static func fineTuning(_ report: TrainingReport) -> String {
        let choice = report.fineTuningChoice.map { "--fine-tune-auto: \($0.reason)\($0.hint.flatMap(ErrorWording.words) ?? "")\n" } ?? ""
        guard let tuning = report.fineTuning else {
            if !choice.isEmpty { return choice + "\n" }
            return report.fineTuningHint.map { ErrorWording.line(for: $0) + "\n\n" } ?? ""
        }
        let last = tuning.firstTrainedBlock + tuning.trainedBlocks - 1
        let blocks = tuning.trainedBlocks == 1 ? "block \(last)" : "blocks \(tuning.firstTrainedBlock)-\(last)"
        var text =
            choice + "Fine-tuning (\(blocks), the final 1x1 convolution and the head; \(tuning.trainingImages) images, "
            + "\(tuning.heldOutImages) held out; augmentation: \(tuning.augmentations.isEmpty ? "none" : tuning.augmentations.joined(separator: ", ")))\n"
        // The figure is always a trained epoch's (`bestTrainedEpoch`), named as such.
        let epoch = tuning.bestTrainedEpoch ?? tuning.bestEpoch
        let tunedRow =
            tuning.keptFrozenModel
            ? "fine-tuned, best epoch \(epoch) of \(tuning.epochs.count) (not kept)"
            : "fine-tuned, epoch \(epoch) of \(tuning.epochs.count)"
        text += table(
            header: ["", "held-out accuracy"],
            rows: [
                ["frozen head", percent(tuning.frozenHeldOutAccuracy)],
                [tunedRow, percent(tuning.fineTunedHeldOutAccuracy)],
            ])
        let points = String(format: "%+.1f", tuning.gain * 100)
        if let diverged = tuning.divergedAtEpoch {
            return text + "fine-tuning diverged at epoch \(diverged) and stopped: kept the frozen model\n\n"
        }
        if let folds = tuning.folds, folds.count > 1 {
            let chosen = tuning.decision?.epoch ?? epoch
            text += table(
                header: ["fold", "training", "held out", "frozen", "fine-tuned (epoch \(chosen))"],
                rows: folds.enumerated().map { index, fold in
                    [
                        "\(index + 1)", "\(fold.trainingImages)", "\(fold.heldOutImages)", percent(fold.frozenHeldOutAccuracy),
                        percent(fold.fineTunedHeldOutAccuracy),
                    ]
                })
        }
        if let decision = tuning.decision {
            return text + "decision (\(decision.method)): \(decision.reason)"
                + (decision.refit ? "; \(tuning.refitSummary(epochs: decision.epoch))" : "") + "\n\n"
        }
        text +=
            tuning.keptFrozenModel
            ? "fine-tuning did not beat the frozen head (\(points) points): kept the frozen model\n\n"
            : "gain over the frozen head: \(points) points\n\n"
        return text
    }

    /// The strengths tried and how each scored, the chosen one marked with `*`; empty when nothing was chosen.
    static func selection(_ report: TrainingReport) -> String {
        guard let selection = report.selection, selection.grid.count > 1 else {
            return report.selection.map { "l2 \(number($0.chosen)) (given), held out: \($0.method)\n\n" } ?? ""
        }
        var text = "l2 chosen: \(number(selection.chosen)) by \(selection.method) (\(selection.heldOutPredictions) held-out predictions)"
        text += selection.refitOnAllTrainingImages ? ", then fitted on all training images\n" : "\n"
        let marks = selection.grid.map { $0.l2 == selection.chosen ? "*" : "" }
        text += table(
            header: ["l2"] + zip(selection.grid, marks).map { number($0.l2) + $1 },
            rows: [
                ["accuracy"] + selection.grid.map { String(format: "%.1f", $0.accuracy * 100) },
                ["log-loss"] + selection.grid.map { String(format: "%.3f", $0.logLoss) },
            ])
        return text + "\n"
    }

    /// The temperature and the expected calibration error before → after it.
    static func calibration(_ report: TrainingReport) -> String {
        report.calibration.map { calibration(calibration: $0) } ?? ""
    }

    static func calibration(calibration: TrainingReport.Calibration) -> String {
        var text = String(
            format: "calibration: temperature %.3f; expected calibration error (%d bins) held-out %.3f → %.3f",
            calibration.temperature, calibration.bins, calibration.heldOutBefore, calibration.heldOutAfter)
        if let before = calibration.testingBefore, let after = calibration.testingAfter {
            text += String(format: ", testing %.3f → %.3f", before, after)
        }
        return text + "\n\n"
    }

    /// Share answered and accuracy per confidence threshold on the held-out images, and the stored threshold.
    static func thresholds(_ report: TrainingReport) -> String {
        guard let thresholds = report.thresholds, !thresholds.table.isEmpty else { return "" }
        var text = "answering only at or above a confidence (held-out images):\n"
        text += table(
            header: ["confidence ≥"] + thresholds.table.map { String(format: "%.2f", $0.threshold) },
            rows: [
                ["answered %"] + thresholds.table.map { String(format: "%.0f", $0.answered * 100) },
                ["accuracy %"] + thresholds.table.map { $0.accuracy.map { String(format: "%.1f", $0 * 100) } ?? "-" },
            ])
        if let target = thresholds.targetPrecision {
            if let chosen = thresholds.chosen {
                text += String(
                    format: "stored threshold %.2f: the lowest reaching %@ precision on held-out images\n",
                    chosen, percent(target))
            } else {
                text += "no threshold reaches \(percent(target)) precision on held-out images: none stored\n"
            }
        }
        return text + "\n"
    }

    /// A strength as a short number: 0.001, 10, 1e+04.
    static func number(_ value: Double) -> String { String(format: "%g", value) }

    /// The evaluation of one split: confusion matrix, per-label metrics, misclassified files.
    static func evaluation(_ evaluation: TrainingReport.SplitEvaluation, labels: [String], title: String) -> String {
        var text = "\n\(title) confusion matrix (rows: true label, columns: predicted)\n"
        text += table(
            header: ["true \\ predicted"] + labels,
            rows: labels.indices.map { [labels[$0]] + evaluation.confusionMatrix[$0].map { "\($0)" } })
        text += "\n"
        text += table(
            header: ["label", "precision", "recall", "F1", "images"],
            rows: evaluation.perLabel.map {
                [
                    $0.label, String(format: "%.3f", $0.precision), String(format: "%.3f", $0.recall),
                    String(format: "%.3f", $0.f1), "\($0.support)",
                ]
            })
        if evaluation.misclassified.isEmpty {
            text += "\nno misclassified \(title.lowercased()) files\n"
        } else {
            text += "\nmisclassified \(title.lowercased()) files (\(evaluation.misclassified.count))\n"
            text += table(
                header: ["file", "true", "predicted", "confidence"],
                rows: evaluation.misclassified.map {
                    [$0.path, $0.truth, $0.predicted, String(format: "%.2f", $0.confidence)]
                })
        }
        return text
    }
}
