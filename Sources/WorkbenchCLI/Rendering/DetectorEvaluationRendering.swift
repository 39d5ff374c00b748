import Foundation
import Workbench

/// What `evaluate` prints for a detector model: which model, pictures and threshold, then train's table of scores.
enum DetectorEvaluationRendering {
    static func text(_ outcome: DetectorEvaluationResult, model: String) -> String {
        let threshold = outcome.scores.threshold
        let which =
            threshold == outcome.storedThreshold
            ? "the model's, best held-out F1"
            : "--min-score; the model's is "
                + String(format: "%.3f", outcome.storedThreshold)
        var text =
            "Detector \(DisplayText.terminal(model)): \(outcome.labels.count) label\(outcome.labels.count == 1 ? "" : "s"), "
            + String(format: "score threshold %.3f", threshold) + " (\(which))"
            + (outcome.mirrored ? "; each picture averaged with its mirror (--tta)" : "") + "\n\n"
        text += DetectorTrainingRendering.scores(outcome.scores, title: DisplayText.terminal(outcome.annotationsFile))
        return text
    }
}
