import Augmentation
import FileFormats
import ImageCodecs
import Inference
import LogisticHead
import TensorCore

/// Scores predictions against the truth: accuracy, confusion matrix, per-label metrics, the files it got wrong.
public enum Evaluation {
    /// Evaluates one split. `probabilities` is `[paths.count, labels.count]`; `truths` index into `labels`.
    public static func evaluate(labels: [String], paths: [String], truths: [Int], probabilities: [Float]) -> TrainingReport.SplitEvaluation {
        let classCount = labels.count
        precondition(
            truths.count == paths.count && probabilities.count == paths.count * classCount,
            "Evaluation: one truth and one probability row per file")
        var matrix = ConfusionMatrix(classCount: classCount)
        var misclassified: [TrainingReport.Misclassified] = []
        var listed = Set<String>()
        for index in paths.indices {
            let row = Array(probabilities[(index * classCount)..<((index + 1) * classCount)])
            let predicted = row.indexOfMaximum
            matrix.add(truth: truths[index], predicted: predicted)
            // A path appears once per repeat of cross-validation; list each wrong file once.
            if predicted != truths[index], listed.insert(paths[index]).inserted {
                misclassified.append(
                    .init(
                        path: paths[index], truth: labels[truths[index]], predicted: labels[predicted],
                        confidence: Double(row[predicted])))
            }
        }
        let summary = matrix.summary
        let perLabel = labels.indices.map { index in
            TrainingReport.LabelMetrics(
                label: labels[index], precision: summary.precision[index], recall: summary.recall[index],
                f1: summary.f1[index], support: summary.support[index])
        }
        return .init(
            accuracy: paths.isEmpty ? 0 : matrix.accuracy, count: paths.count, confusionMatrix: matrix.counts,
            perLabel: perLabel, macroF1: summary.macroF1, misclassified: misclassified,
            expectedCalibrationError: paths.isEmpty
                ? nil
                : CalibrationError.expected(
                    probabilities: probabilities, labels: truths, classCount: classCount))
    }
}

/// A labelled folder's evaluation and the files that could not be read.
public struct EvaluationResult: Sendable {
    public var evaluation: TrainingReport.SplitEvaluation
    public var labels: [String]
    /// Every file left out: entries the scan could not read, then images that failed to decode.
    public var unreadable: [TrainingReport.Problem]
    /// The readable files' predictions, for pages that draw more than the numbers.
    public var predictions: SplitPredictions
    /// How many test-time views each answer averaged (`--tta`); 1 for plain answers.
    public var viewsPerImage = 1
    /// The folder whose label subfolders were scored: the one given, or a dataset's testing split (its
    /// `Testing Data/` or `test/`) when a whole dataset was given.
    public var scoredFolder: String?
    /// Whether `scoredFolder` is the testing split of the dataset given, not the folder given itself.
    public var isTestingSplit = false

    /// Bundles an evaluation's parts.
    public init(
        evaluation: TrainingReport.SplitEvaluation, labels: [String], unreadable: [TrainingReport.Problem],
        predictions: SplitPredictions
    ) {
        (self.evaluation, self.labels, self.unreadable, self.predictions) = (evaluation, labels, unreadable, predictions)
    }
}
