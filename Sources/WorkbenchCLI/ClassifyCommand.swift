import ArgumentParser
import Foundation
import Workbench

struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Label images with a trained model.",
        discussion: """
            Prints per image its path, then the best label and its confidence (the K best with --top K), tab \
            separated. Confidences are calibrated: of the answers given at 0.8, about 80 % are right. --label puts \
            one label and its confidence first, whatever the top label is (a drawing game's score); with --top K \
            the K most probable labels follow it. --abstain answers "unknown" (before the ranked labels) below the \
            confidence threshold the model was trained for (train --target-precision). Unreadable files get one \
            line on stderr; the exit status is 1 when any failed.

            Examples:
              workbench classify Drawings.wbmodel photo.jpg
              workbench classify Drawings.wbmodel "Testing Data" --top 3
              workbench classify Drawings.wbmodel drawing.png --label Mammal --top 2
              workbench classify Drawings.wbmodel photos/ --json > predictions.jsonl
            """)

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Argument(help: ArgumentHelp("Image files or folders.", valueName: "image-or-folder"))
    var inputs: [String]

    @Option(name: .long, help: ArgumentHelp("Show the K most probable labels (after --label's, when given).", valueName: "k"))
    var top: Int = 1

    @Option(name: .long, help: ArgumentHelp("Report this label's confidence instead of the best label's.", valueName: "label"))
    var label: String?

    @Flag(help: "Answer \"unknown\" below the model's confidence threshold (set by train --target-precision).")
    var abstain = false

    @Flag(help: "Write JSON Lines: {\"path\", \"label\", \"confidence\", \"probabilities\"} per image, and \"top\" with --top K > 1.")
    var json = false

    @OptionGroup var compute: ComputeOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup var skipping: StrictOption

    /// The label given instead of an answer below the threshold.
    static let unknownLabel = "unknown"

    func validate() throws {
        guard top >= 1 else { throw ValidationError("--top must be at least 1, got \(top)") }
        if abstain, label != nil { throw ValidationError("--abstain and --label do not go together: --label reports a score, not an answer") }
    }

    func run() throws {
        try Console.run {
            let classifier = try Classifier.load(path: model)
            if let label, !classifier.labels.contains(label) {
                throw WorkbenchError(path: model, reason: "the model has no label '\(label)' (labels: \(classifier.labels.joined(separator: ", ")))")
            }
            let threshold = abstain ? classifier.confidenceThreshold : nil
            if abstain, threshold == nil {
                throw WorkbenchError(path: model, reason: "the model has no confidence threshold for --abstain: train it with --target-precision P")
            }
            let list = try ImageFileList.expand(inputs)
            if skipping.strict, let first = list.unreadable.first { throw first }
            for problem in list.unreadable { Console.warn("\(problem)") }
            guard !list.files.isEmpty || !list.unreadable.isEmpty else {
                throw WorkbenchError("no image files in \(inputs.joined(separator: ", "))")
            }
            let extractor = compute.extractor(backbone: classifier.backbone, usesCache: !cache.noCache)
            let progress = ProgressBar(total: list.files.count, label: "classify")
            var failures = list.unreadable.count
            var strictFailure: WorkbenchError?
            ClassificationWorkflow.classify(paths: list.files, classifier: classifier, extractor: extractor) { index, path, result in
                defer { progress.update(completed: index + 1) }
                progress.finish()
                switch result {
                case .success(let prediction):
                    let answered = threshold.map { prediction.isAnswered(threshold: $0) } ?? true
                    // A failed stdout stops the run; Console reports it.
                    return Console.output(json ? jsonLine(prediction, labels: classifier.labels, answered: answered)
                                               : textLine(prediction, labels: classifier.labels, answered: answered))
                case .failure(let error):
                    failures += 1
                    if skipping.strict {
                        strictFailure = error
                        return false
                    }
                    Console.warn("\(error)")
                    return true
                }
            }
            progress.finish()
            if let strictFailure { throw strictFailure }
            if failures > 0 && !Console.outputFailed {
                Console.warn("\(failures) of \(list.files.count + list.unreadable.count) images could not be classified")
                throw ExitCode(1)
            }
        }
    }

    private func textLine(_ prediction: Prediction, labels: [String], answered: Bool) -> String {
        func pair(_ label: String, _ probability: Float) -> String { "\(label)\t\(String(format: "%.4f", probability))" }
        var columns = [prediction.path]
        // Below the threshold the answer is "unknown"; the ranked labels still follow, for a person to judge.
        if !answered { columns.append(Self.unknownLabel) }
        if let label {
            // Validated in run(): the model has this label.
            columns.append(pair(label, prediction.probabilities[labels.firstIndex(of: label)!]))
        }
        // --label alone is the one asked label; --top K adds the K best after it.
        if label == nil || top > 1 {
            columns += prediction.top(top, labels: labels).map { pair($0.label, $0.probability) }
        }
        return columns.joined(separator: "\t") + "\n"
    }

    private func jsonLine(_ prediction: Prediction, labels: [String], answered: Bool) -> String {
        let probabilities = labels.indices.map { "\(jsonString(labels[$0])):\(jsonNumber(prediction.probabilities[$0]))" }.joined(separator: ",")
        var fields = ["\"path\":\(jsonString(prediction.path))"]
        if let label {
            let probability = prediction.probabilities[labels.firstIndex(of: label)!]
            fields.append("\"label\":\(jsonString(label))")
            fields.append("\"confidence\":\(jsonNumber(probability))")
            fields.append("\"topLabel\":\(jsonString(prediction.label))")
        } else {
            fields.append("\"label\":\(jsonString(answered ? prediction.label : Self.unknownLabel))")
            fields.append("\"confidence\":\(jsonNumber(prediction.confidence))")
            if abstain {
                fields.append("\"abstained\":\(!answered)")
                fields.append("\"topLabel\":\(jsonString(prediction.label))")
            }
        }
        if top > 1 {
            let ranked = prediction.top(top, labels: labels).map { "{\"label\":\(jsonString($0.label)),\"probability\":\(jsonNumber($0.probability))}" }
            fields.append("\"top\":[\(ranked.joined(separator: ","))]")
        }
        fields.append("\"probabilities\":{\(probabilities)}")
        return "{\(fields.joined(separator: ","))}\n"
    }
}

struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Measure a trained model on a labelled folder.",
        discussion: """
            FOLDER holds one subfolder of images per label (or is a dataset folder, whose testing split is used). \
            Prints accuracy, the confusion matrix, per-label precision, recall and F1, and the misclassified files.

            With --shard I/N (or inside a Slurm array job) only that part of the images is evaluated.

            Examples:
              workbench evaluate Drawings.wbmodel "datasets/drawings/Testing Data"
              workbench evaluate Drawings.wbmodel datasets/drawings --json
              workbench evaluate Drawings.wbmodel datasets/drawings --html evaluation.html
              workbench evaluate Drawings.wbmodel "Testing Data" --shard 1/2
            """)

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Argument(help: ArgumentHelp("A folder of label subfolders.", valueName: "folder"))
    var folder: String

    @Flag(help: "Print the evaluation as JSON.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Also write an HTML report with the misclassified images.", valueName: "file"))
    var html: String?

    @OptionGroup var compute: ComputeOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup var skipping: StrictOption
    @OptionGroup var sharding: ShardOptions

    func run() throws {
        try Console.run {
            let classifier = try Classifier.load(path: model)
            if let html { try Console.checkWritable(html) }
            let extractor = compute.extractor(backbone: classifier.backbone, usesCache: !cache.noCache)
            var progress: ProgressBar?
            let result = try ClassificationWorkflow.evaluate(folder: folder, classifier: classifier, extractor: extractor,
                strict: skipping.strict, shard: try sharding.resolve(),
                progress: { done, total in
                    if progress == nil { progress = ProgressBar(total: total, label: "evaluate") }
                    progress?.update(completed: done)
                }, warning: { line in
                    progress?.finish()
                    Console.warn("warning: \(line)")
                })
            progress?.finish()
            if json {
                Console.output(try ReportRendering.json(EvaluationOutput(
                    evaluation: result.evaluation, unreadable: result.unreadable, preprocessing: classifier.preprocessing,
                    backbone: classifier.backboneDescription, fineTuning: classifier.fineTuning)))
            } else {
                let evaluation = result.evaluation
                Console.outputLine(ReportRendering.table(
                    header: ["", "accuracy", "95 % interval", "images", "calibration error"],
                    rows: [["evaluation", ReportRendering.percent(evaluation.accuracy),
                            ReportRendering.interval(WilsonInterval.interval(proportion: evaluation.accuracy, count: evaluation.count)),
                            "\(evaluation.count)", evaluation.expectedCalibrationError.map { String(format: "%.3f", $0) } ?? "-"]]))
                Console.outputLine(ReportRendering.evaluation(result.evaluation, labels: result.labels, title: "Evaluation"))
                if !result.unreadable.isEmpty { Console.outputLine("\(result.unreadable.count) unreadable images skipped") }
                Console.outputLine("backbone: \(classifier.backboneDescription)")
                Console.outputLine("preprocessing: \(classifier.preprocessing.summary)")
            }
            if let html {
                try ModelReports.write(try ModelReports.evaluationPage(result, folder: folder, classifier: classifier, extractor: extractor),
                                       to: html)
                if json { Console.warn("report written to \(html)") } else { Console.outputLine("report written to \(html)") }
            }
        }
    }
}

/// `evaluate --json`: the evaluation's fields, plus `unreadable` (the files left out and why), the model's
/// `preprocessing`, `backbone` (pretrained or fine-tuned, in words) and `fineTuning` (the record, when there is one).
struct EvaluationOutput: Encodable {
    var evaluation: TrainingReport.SplitEvaluation
    var unreadable: [TrainingReport.Problem]
    var preprocessing: ImagePreprocessing
    var backbone: String
    var fineTuning: FineTuningRecord?

    private enum CodingKeys: String, CodingKey { case unreadable, preprocessing, backbone, fineTuning }

    func encode(to encoder: Encoder) throws {
        try evaluation.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(unreadable, forKey: .unreadable)
        try container.encode(preprocessing, forKey: .preprocessing)
        try container.encode(backbone, forKey: .backbone)
        try container.encodeIfPresent(fineTuning, forKey: .fineTuning)
    }
}

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a model file holds: labels, input, size, training report.",
        discussion: """
            Examples:
              workbench inspect Drawings.wbmodel
              workbench inspect Drawings.wbmodel --json
            """)

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Flag(help: "Print as JSON.")
    var json = false

    func run() throws {
        try Console.run {
            let classifier = try Classifier.load(path: model)
            let file = classifier.modelFile
            let size = (try? FileManager.default.attributesOfItem(atPath: model)[.size] as? Int) ?? 0
            let report = classifier.trainingReport
            if json {
                struct Summary: Encodable {
                    var path: String, labels: [String], inputSide: Int, preprocessing: ImagePreprocessing, backbone: String
                    var backboneTraining: String, fineTuning: FineTuningRecord?
                    var fileBytes: Int, created: String, workbenchVersion: String, temperature: Double
                    var confidenceThreshold: Double?, trainingReport: TrainingReport?
                }
                Console.output(try ReportRendering.json(Summary(
                    path: model, labels: file.labels, inputSide: file.preprocessing.inputSide, preprocessing: file.preprocessing,
                    backbone: file.backboneName, backboneTraining: classifier.backboneDescription, fineTuning: classifier.fineTuning,
                    fileBytes: size, created: file.creationDate,
                    workbenchVersion: file.workbenchVersion, temperature: file.temperature,
                    confidenceThreshold: file.confidenceThreshold, trainingReport: report)))
                return
            }
            Console.outputLine("model        \(model)")
            Console.outputLine("labels       \(file.labels.joined(separator: ", ")) (\(file.labels.count))")
            Console.outputLine("input        \(file.preprocessing.inputSide) × \(file.preprocessing.inputSide) \(file.preprocessing.channelOrder), \(file.preprocessing.name)")
            Console.outputLine("preprocess   \(file.preprocessing.summary)")
            Console.outputLine("backbone     \(file.backboneName), \(file.backboneTensors.count) tensors, \(classifier.backboneDescription)")
            if let fineTuning = classifier.fineTuning {
                Console.outputLine("fine-tuned   \(fineTuning.trainedTensorNames.count) tensors trained, from block \(fineTuning.firstTrainedBlock), \(fineTuning.epochs) epochs")
                Console.outputLine("augmented    \(fineTuning.augmentations.isEmpty ? "none" : fineTuning.augmentations.joined(separator: ", "))")
            }
            Console.outputLine("file size    \(String(format: "%.1f", Double(size) / 1_048_576)) MiB")
            Console.outputLine("created      \(file.creationDate) by Workbench \(file.workbenchVersion)")
            Console.outputLine("temperature  \(String(format: "%.4g", file.temperature)) (probabilities are softmax(logits / temperature))")
            Console.outputLine("threshold    \(file.confidenceThreshold.map { String(format: "%.2f", $0) } ?? "none") (classify --abstain, label --min-confidence auto)")
            if let report {
                Console.outputLine()
                Console.outputLine(ReportRendering.accuracies(report))
                Console.outputLine(ReportRendering.counts(report.counts, validationTitle: ReportRendering.validationTitle(report)))
                Console.outputLine("l2 \(ReportRendering.number(report.settings.l2))\(report.settings.l2Chosen ? " (chosen)" : ""), seed \(report.settings.seed), held out: \(report.settings.validationSource)")
                if let calibration = report.calibration { Console.outputLine(); Console.output(ReportRendering.calibration(calibration: calibration)) }
            }
        }
    }
}
