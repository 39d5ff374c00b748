import Foundation
import Workbench

/// What `inspect` prints about a model file: aligned lines for people, or (`--json`) one JSON object.
enum ModelSummaryRendering {
    /// The labels, input, backbone, fine-tuning, size, creation, temperature and threshold, then the training
    /// report's accuracies, counts, L2 and calibration when the model has one.
    static func text(_ classifier: Classifier, fileBytes: Int) -> String {
        let file = classifier.modelFile
        var lines = [
            "model        \(classifier.path)",
            "labels       \(file.labels.joined(separator: ", ")) (\(file.labels.count))",
            "input        \(file.preprocessing.inputSide) × \(file.preprocessing.inputSide) \(file.preprocessing.channelOrder), \(file.preprocessing.name)",
            "preprocess   \(file.preprocessing.summary)",
            "backbone     \(file.backboneName), \(file.backboneTensors.count) tensors, \(classifier.backboneDescription)",
        ]
        if let fineTuning = classifier.fineTuning {
            lines.append(
                "fine-tuned   \(fineTuning.trainedTensorNames.count) tensors trained, from block \(fineTuning.firstTrainedBlock), \(fineTuning.epochs) epochs"
            )
            lines.append("augmented    \(fineTuning.augmentations.isEmpty ? "none" : fineTuning.augmentations.joined(separator: ", "))")
        }
        lines += [
            "file size    \(String(format: "%.1f", Double(fileBytes) / 1_048_576)) MiB",
            "created      \(file.creationDate) by Workbench \(file.workbenchVersion)",
            "temperature  \(String(format: "%.4g", file.temperature)) (probabilities are softmax(logits / temperature))",
            "threshold    \(file.confidenceThreshold.map { String(format: "%.2f", $0) } ?? "none") (classify --abstain, label --min-confidence auto)",
            "tta          \(testTimeAugmentation(file.testTimeAugmentation))",
        ]
        var text = lines.joined(separator: "\n") + "\n"
        if let report = classifier.trainingReport {
            text += "\n" + ReportRendering.accuracies(report) + "\n"
            text += ReportRendering.counts(report.counts, validationTitle: ReportRendering.validationTitle(report)) + "\n"
            text +=
                "l2 \(ReportRendering.number(report.settings.l2))\(report.settings.l2Chosen ? " (chosen)" : ""), seed \(report.settings.seed), held out: \(report.settings.validationSource)\n"
            if let calibration = report.calibration { text += "\n" + ReportRendering.calibration(calibration: calibration) }
        }
        return text
    }

    /// The model's test-time augmentation: "on by default (4 views, mirrored; --no-tta turns it off)" or
    /// "off by default (--tta: 2 views, never mirrored)".
    static func testTimeAugmentation(_ record: TestTimeAugmentationRecord) -> String {
        let views = TestTimeViews(mirrors: record.mirrors)
        let which = "\(views.count) views, \(record.mirrors ? "mirrored" : "never mirrored")"
        return record.byDefault ? "on by default (\(which); --no-tta turns it off)" : "off by default (--tta: \(which))"
    }

    /// The same facts as JSON, the training report whole.
    static func json(_ classifier: Classifier, fileBytes: Int) throws -> String {
        let file = classifier.modelFile
        return try ReportJSON.text(
            Summary(
                path: classifier.path, labels: file.labels, inputSide: file.preprocessing.inputSide, preprocessing: file.preprocessing,
                backbone: file.backboneName, backboneTraining: classifier.backboneDescription, fineTuning: classifier.fineTuning,
                testTimeAugmentation: file.testTimeAugmentation, fileBytes: fileBytes, created: file.creationDate,
                workbenchVersion: file.workbenchVersion, temperature: file.temperature,
                confidenceThreshold: file.confidenceThreshold, trainingReport: classifier.trainingReport))
    }

    private struct Summary: Encodable {
        var path: String, labels: [String], inputSide: Int, preprocessing: ImagePreprocessing, backbone: String
        var backboneTraining: String, fineTuning: FineTuningRecord?, testTimeAugmentation: TestTimeAugmentationRecord
        var fileBytes: Int, created: String, workbenchVersion: String, temperature: Double
        var confidenceThreshold: Double?, trainingReport: TrainingReport?
    }
}
