import Foundation
import Workbench

/// What `train` prints once the files are written: the report (tables, or JSON with `--json`) on stdout, the
/// timings and a threshold that could not be stored on stderr, and the paths written last.
enum TrainingRendering {
    static func render(_ outcome: TrainingWorkflowResult, json: Bool) throws {
        let trained = outcome.result.report
        if json {
            Console.output(try ReportJSON.text(trained))
        } else {
            Console.output(tables(trained))
        }
        Console.warn(timings(trained))
        if let target = trained.thresholds?.targetPrecision, trained.thresholds?.chosen == nil {
            Console.warn("warning: no confidence threshold reaches precision \(ReportRendering.percent(target)) on the held-out images; none stored")
        }
        // With --json, stdout is the report alone, for machines; the paths still come last, on stderr.
        for line in (outcome.pagePath.map { ["report written to \($0)"] } ?? []) + [
            ReportRendering.modelWritten(outcome.modelPath, replaced: outcome.replacedModel)
        ] {
            if json { Console.warn(line) } else { Console.outputLine(line) }
        }
    }

    /// The report for people: counts, accuracies, warnings, augmentation, fine-tuning, the choice of L2,
    /// calibration, thresholds, then the testing (else validation) evaluation.
    static func tables(_ trained: TrainingReport) -> String {
        var text = ReportRendering.counts(trained.counts, validationTitle: ReportRendering.validationTitle(trained)) + "\n"
        text += ReportRendering.accuracies(trained) + "\n"
        for line in trained.diagnostics ?? [] { text += "warning: \(line)\n" }
        if trained.diagnostics?.isEmpty == false { text += "\n" }
        if let views = trained.settings.augmentedViews, let augmentation = trained.settings.augmentation {
            text += "Augmentation: \(views) view\(views == 1 ? "" : "s") of each training image (\(augmentation))\n\n"
        }
        text +=
            ReportRendering.fineTuning(trained) + ReportRendering.selection(trained)
            + ReportRendering.calibration(trained) + ReportRendering.thresholds(trained)
        if let testing = trained.testingEvaluation {
            text += ReportRendering.evaluation(testing, labels: trained.labels, title: "Testing") + "\n"
        } else if let validation = trained.validationEvaluation {
            if let repeats = trained.selection?.repeats, repeats > 1 {
                text += "\n(validation counts are held-out predictions: each training image was held out \(repeats) times)\n"
            }
            text += ReportRendering.evaluation(validation, labels: trained.labels, title: "Validation") + "\n"
        }
        if !trained.unreadable.isEmpty { text += "\(trained.unreadable.count) unreadable images skipped\n" }
        return text
    }

    /// "features 1.2 s, views 3.4 s, head 0.05 s (choosing l2 0.04 s), fine-tuning 20.0 s, total 25.0 s".
    static func timings(_ trained: TrainingReport) -> String {
        let viewTime = trained.timings?.augmentation.map { String(format: ", views %.1f s", $0) } ?? ""
        let tuningTime = trained.timings?.fineTuning.map { String(format: ", fine-tuning %.1f s", $0) } ?? ""
        return String(format: "features %.1f s", trained.timings?.features ?? 0) + viewTime
            + String(format: ", head %.2f s (choosing l2 %.2f s)", trained.timings?.training ?? 0, trained.timings?.selection ?? 0)
            + tuningTime + String(format: ", total %.1f s", trained.timings?.total ?? 0)
    }
}
