import Foundation
import Workbench

/// What `inspect` prints about a detector model: aligned lines, or (`--json`) one JSON object with the report.
enum DetectorSummaryRendering {
    /// The labels, input, backbone, threshold, size and creation, then the held-out (and testing) scores.
    static func text(_ file: DetectorModelFile, path: String, fileBytes: Int) -> String {
        let width = file.headTensors["mixing.weights"]?.shape.last ?? 0
        let report = report(file)
        var training = "pretrained, frozen"
        if let fineTuning = report?.fineTuning {
            training =
                fineTuning.chosenEpoch > 0
                ? "blocks \(fineTuning.firstTrainedBlock)-15 fine-tuned (epoch \(fineTuning.chosenEpoch) of \(fineTuning.epochs.count))"
                : "pretrained, frozen (fine-tuning did not beat it on the held-out pictures)"
        }
        var text =
            [
                "model        \(DisplayText.terminal(path))",
                "kind         detector (CenterNet head of width \(width) on the stride-16 and stride-32 maps)",
                "labels       \(file.labels.map { DisplayText.terminal($0) }.joined(separator: ", ")) (\(file.labels.count))",
                "input        \(file.inputSide) × \(file.inputSide) \(file.preprocessing.channelOrder), the whole picture resized",
                "backbone     \(file.backboneName), \(training), \(file.backboneTensors.count) tensors, sha256 \(file.backboneIdentifier.prefix(16))…",
                "threshold    \(String(format: "%.3f", file.scoreThreshold)) (best held-out F1; detect --model's default --min-score)",
                "file size    \(String(format: "%.1f", Double(fileBytes) / 1_048_576)) MiB",
                "created      \(file.creationDate) by Workbench \(file.workbenchVersion)",
            ].joined(separator: "\n") + "\n"
        if let report {
            var chosen = "epoch \(report.chosenEpoch) of \(report.settings.epochs)"
            if let fineTuning = report.fineTuning, fineTuning.chosenEpoch > 0 {
                chosen =
                    "head epoch \(report.chosenEpoch) of \(report.settings.epochs), then fine-tuning epoch \(fineTuning.chosenEpoch) of \(fineTuning.epochs.count)"
            }
            if let refit = report.refit {
                // The stored head is the refit's; the held-out pictures scored the chosen head, which it replaced.
                chosen += "; the stored head was then refitted on all \(refit.pictures) pictures for \(refit.epochs) epochs"
            }
            text += "\n" + DetectorTrainingRendering.scores(report.heldOut, title: "Held-out (\(chosen))")
            if let testing = report.testing { text += "\n" + DetectorTrainingRendering.scores(testing, title: "Testing") }
        }
        return text
    }

    /// The same facts as JSON, the training report whole.
    static func json(_ file: DetectorModelFile, path: String, fileBytes: Int) throws -> String {
        try ReportJSON.text(
            Summary(
                path: path, kind: "detector", labels: file.labels, inputSide: file.inputSide,
                preprocessing: file.preprocessing, backbone: file.backboneName,
                backboneSHA256: file.backboneIdentifier, scoreThreshold: file.scoreThreshold,
                fileBytes: fileBytes, created: file.creationDate, workbenchVersion: file.workbenchVersion,
                trainingReport: report(file)))
    }

    private static func report(_ file: DetectorModelFile) -> DetectorTrainingReport? {
        try? JSONDecoder().decode(DetectorTrainingReport.self, from: Data(file.trainingReportJSON.utf8))
    }

    private struct Summary: Encodable {
        var path: String, kind: String, labels: [String], inputSide: Int, preprocessing: ImagePreprocessing
        var backbone: String, backboneSHA256: String, scoreThreshold: Double, fileBytes: Int, created: String
        var workbenchVersion: String, trainingReport: DetectorTrainingReport?
    }
}
