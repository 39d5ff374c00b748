import ArgumentParser
import Foundation
import Workbench

struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Label images with a trained model.",
        discussion: """
            Prints per image its path, then the best label and its confidence (the K best with --top K), tab \
            separated. --label puts one label and its confidence first, whatever the top label is (a drawing \
            game's score); with --top K the K most probable labels follow it. Unreadable files get one line on \
            stderr; the exit status is 1 when any failed.

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

    @Flag(help: "Write JSON Lines: {\"path\", \"label\", \"confidence\", \"probabilities\"} per image, and \"top\" with --top K > 1.")
    var json = false

    @OptionGroup var compute: ComputeOptions
    @OptionGroup var cache: CacheOptions

    func validate() throws {
        guard top >= 1 else { throw ValidationError("--top must be at least 1") }
    }

    func run() throws {
        try Console.run {
            let classifier = try Classifier.load(path: model)
            if let label, !classifier.labels.contains(label) {
                throw WorkbenchError(path: model, reason: "the model has no label '\(label)' (labels: \(classifier.labels.joined(separator: ", ")))")
            }
            let paths = try ImageFileList.expand(inputs)
            guard !paths.isEmpty else { throw WorkbenchError("no image files in \(inputs.joined(separator: ", "))") }
            let extractor = compute.extractor(backbone: classifier.backbone, usesCache: !cache.noCache)
            let progress = ProgressBar(total: paths.count, label: "classify")
            var failures = 0
            var output = ""
            ClassificationWorkflow.classify(paths: paths, classifier: classifier, extractor: extractor) { index, path, result in
                switch result {
                case .success(let prediction):
                    output = json ? jsonLine(prediction, labels: classifier.labels) : textLine(prediction, labels: classifier.labels)
                    progress.finish()
                    print(output, terminator: "")
                case .failure(let error):
                    progress.finish()
                    Console.warn("\(error)")
                    failures += 1
                }
                progress.update(completed: index + 1)
            }
            progress.finish()
            if failures > 0 {
                Console.warn("\(failures) of \(paths.count) images could not be classified")
                throw ExitCode(1)
            }
        }
    }

    private func textLine(_ prediction: Prediction, labels: [String]) -> String {
        func pair(_ label: String, _ probability: Float) -> String { "\(label)\t\(String(format: "%.4f", probability))" }
        var columns = [prediction.path]
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

    private func jsonLine(_ prediction: Prediction, labels: [String]) -> String {
        let probabilities = labels.indices.map { "\(jsonString(labels[$0])):\(prediction.probabilities[$0])" }.joined(separator: ",")
        var fields = ["\"path\":\(jsonString(prediction.path))"]
        if let label {
            let probability = prediction.probabilities[labels.firstIndex(of: label)!]
            fields.append("\"label\":\(jsonString(label))")
            fields.append("\"confidence\":\(probability)")
            fields.append("\"top_label\":\(jsonString(prediction.label))")
        } else {
            fields.append("\"label\":\(jsonString(prediction.label))")
            fields.append("\"confidence\":\(prediction.confidence)")
        }
        if top > 1 {
            let ranked = prediction.top(top, labels: labels).map { "{\"label\":\(jsonString($0.label)),\"probability\":\($0.probability)}" }
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

            Examples:
              workbench evaluate Drawings.wbmodel "datasets/drawings/Testing Data"
              workbench evaluate Drawings.wbmodel datasets/drawings --json
            """)

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Argument(help: ArgumentHelp("A folder of label subfolders.", valueName: "folder"))
    var folder: String

    @Flag(help: "Print the evaluation as JSON.")
    var json = false

    @OptionGroup var compute: ComputeOptions
    @OptionGroup var cache: CacheOptions

    func run() throws {
        try Console.run {
            let classifier = try Classifier.load(path: model)
            let extractor = compute.extractor(backbone: classifier.backbone, usesCache: !cache.noCache)
            var progress: ProgressBar?
            let result = try ClassificationWorkflow.evaluate(folder: folder, classifier: classifier, extractor: extractor,
                progress: { done, total in
                    if progress == nil { progress = ProgressBar(total: total, label: "evaluate") }
                    progress?.update(completed: done)
                }, warning: { line in
                    progress?.finish()
                    Console.warn("warning: \(line)")
                })
            progress?.finish()
            if json {
                print(ReportRendering.json(result.evaluation), terminator: "")
            } else {
                print(ReportRendering.table(header: ["", "accuracy", "images"],
                                            rows: [["evaluation", ReportRendering.percent(result.evaluation.accuracy), "\(result.evaluation.count)"]]))
                print(ReportRendering.evaluation(result.evaluation, labels: result.labels, title: "Evaluation"))
                if !result.unreadable.isEmpty { print("\(result.unreadable.count) unreadable images skipped") }
            }
        }
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
                    var path: String, labels: [String], inputSide: Int, preprocessing: String, backbone: String
                    var fileBytes: Int, created: String, workbenchVersion: String, trainingReport: TrainingReport?
                }
                print(ReportRendering.json(Summary(
                    path: model, labels: file.labels, inputSide: file.preprocessing.inputSide, preprocessing: file.preprocessing.name,
                    backbone: file.backboneName, fileBytes: size, created: file.creationDate,
                    workbenchVersion: file.workbenchVersion, trainingReport: report)), terminator: "")
                return
            }
            print("model        \(model)")
            print("labels       \(file.labels.joined(separator: ", ")) (\(file.labels.count))")
            print("input        \(file.preprocessing.inputSide) × \(file.preprocessing.inputSide) \(file.preprocessing.channelOrder), \(file.preprocessing.name)")
            print("backbone     \(file.backboneName), \(file.backboneTensors.count) tensors")
            print("file size    \(String(format: "%.1f", Double(size) / 1_048_576)) MiB")
            print("created      \(file.creationDate) by Workbench \(file.workbenchVersion)")
            if let report {
                print("")
                print(ReportRendering.accuracies(report))
                print(ReportRendering.counts(report.counts))
                print("l2 \(report.settings.l2)\(report.settings.l2Chosen ? " (chosen by validation)" : ""), seed \(report.settings.seed), validation: \(report.settings.validationSource)")
            }
        }
    }
}
