import Foundation
import Workbench

/// What `evaluate` prints: a summary table, the evaluation and the model's input, or (`--json`) all of it as JSON.
enum EvaluationRendering {
    /// The accuracy with its interval and calibration error, the confusion matrix and per-label figures, the
    /// mistakes, the files left out, the backbone and the preprocessing.
    static func text(_ result: EvaluationResult, classifier: Classifier) -> String {
        let evaluation = result.evaluation
        var text = result.scoredFolder.map { "scored \($0)" + (result.isTestingSplit ? " (the dataset's testing split)" : "") + "\n\n" } ?? ""
        text +=
            ReportRendering.table(
                header: ["", "accuracy", "95 % interval", "images", "calibration error"],
                rows: [
                    [
                        "evaluation", ReportRendering.percent(evaluation.accuracy),
                        ReportRendering.interval(WilsonInterval.interval(proportion: evaluation.accuracy, count: evaluation.count)),
                        "\(evaluation.count)", evaluation.expectedCalibrationError.map { String(format: "%.3f", $0) } ?? "-",
                    ]
                ]) + "\n"
        text += ReportRendering.evaluation(result.evaluation, labels: result.labels, title: "Evaluation") + "\n"
        if !result.unreadable.isEmpty { text += "\(result.unreadable.count) unreadable images skipped\n" }
        text += "backbone: \(classifier.backboneDescription)\n"
        text += "preprocessing: \(classifier.preprocessing.summary)\n"
        if result.viewsPerImage > 1 { text += "test-time augmentation: the mean over \(result.viewsPerImage) views of each image\n" }
        return text
    }

    /// `EvaluationOutput` as indented JSON.
    static func json(_ result: EvaluationResult, classifier: Classifier) throws -> String {
        try ReportJSON.text(
            EvaluationOutput(
                evaluation: result.evaluation, unreadable: result.unreadable, preprocessing: classifier.preprocessing,
                backbone: classifier.backboneDescription, fineTuning: classifier.fineTuning,
                testTimeViews: result.viewsPerImage, folder: result.scoredFolder))
    }
}

/// `evaluate --json`: the evaluation's fields, plus `unreadable` (the files left out and why), the model's
/// `preprocessing`, `backbone` (pretrained or fine-tuned, in words), `fineTuning` (the record, when there is one)
/// `testTimeViews` (views per answer: 1, or more with `--tta`) and `folder` (the folder scored: the one given, or a
/// dataset's testing split).
struct EvaluationOutput: Encodable {
    var evaluation: TrainingReport.SplitEvaluation
    var unreadable: [TrainingReport.Problem]
    var preprocessing: ImagePreprocessing
    var backbone: String
    var fineTuning: FineTuningRecord?
    /// Views each answer averaged: 1 for plain answers, more with `--tta`.
    var testTimeViews: Int
    /// The folder scored: the one given, or the dataset's testing split.
    var folder: String?

    private enum CodingKeys: String, CodingKey { case unreadable, preprocessing, backbone, fineTuning, testTimeViews, folder }

    func encode(to encoder: Encoder) throws {
        try evaluation.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(unreadable, forKey: .unreadable)
        try container.encode(preprocessing, forKey: .preprocessing)
        try container.encode(backbone, forKey: .backbone)
        try container.encodeIfPresent(fineTuning, forKey: .fineTuning)
        try container.encode(testTimeViews, forKey: .testTimeViews)
        try container.encodeIfPresent(folder, forKey: .folder)
    }
}
