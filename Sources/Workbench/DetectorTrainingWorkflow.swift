import ClassifierTraining
import DetectionAnnotations
import DetectorTraining
import FileFormats
import Foundation
import Inference
import Reports
import TensorCore

/// `workbench train` on an object-detection dataset: what to train on and how.
public struct DetectorTrainingWorkflowRequest: Sendable {
    /// An `annotations.json` file (Create ML's, or `detect --json`'s output), a folder holding one, or a folder
    /// holding `Training Data/` (and optionally `Testing Data/`) that do.
    public var datasetPath: String
    /// A testing folder or annotations file; nil takes the dataset's `Testing Data/` when it has one.
    public var testingPath: String?
    /// Epochs, batch size, learning rate, seed, threads.
    public var schedule: DetectorHeadSchedule
    /// With `--fine-tune`: how the backbone's top (blocks 11–15) and the head train after the frozen head.
    public var fineTuning: DetectorFineTuningSettings?
    /// After the held-out choice, train again on every training picture for the chosen or every epoch (frozen runs).
    public var refit: DetectorRefitLength? = DetectorTrainingRequest.defaultRefit
    /// Side of the network input (a multiple of 32).
    public var inputSide: Int
    /// Random crops per training picture besides the whole picture and its mirror.
    public var crops: Int
    /// The model file to write; nil is `TrainingWorkflow.defaultModelPath` of the dataset (of an annotations
    /// file's folder).
    public var modelPath: String?
    /// Also write the report as JSON here.
    public var reportPath: String?
    /// Where the HTML page goes (`TrainingOutput.Page`): by default beside the model.
    public var page = TrainingOutput.Page.besideModel
    /// The network the maps come from; by default set-up's pretrained weights.
    public var backbone = BackboneSource.pretrained(path: nil)
    /// Threads, pixel limit and feature cache use of the network.
    public var features = FeatureSettings()

    /// The defaults (`DetectorTrainingRequest`'s).
    public init(datasetPath: String, testingPath: String? = nil) {
        self.datasetPath = datasetPath
        self.testingPath = testingPath
        schedule = DetectorTrainingRequest.defaultSchedule
        inputSide = DetectionFeatureExtractor.defaultInputSide
        crops = DetectorTrainingRequest.defaultCrops
    }
}

/// A finished detector training run.
public struct DetectorTrainingWorkflowResult: Sendable {
    /// The detector and its scores.
    public var result: DetectorTrainingResult
    /// The report (`--json`).
    public var report: DetectorTrainingReport
    /// The model file written.
    public var modelPath: String
    /// The HTML page written, if any.
    public var pagePath: String?
    /// Whether the model file replaced a file already at `modelPath` (a model trained before).
    public var replacedModel = false
}

/// `workbench train DATASET` when DATASET is an object-detection dataset: reads the annotations (one-line errors
/// naming the entry), trains the head on the frozen backbone's cached maps (`DetectorTraining.DetectorTrainingRun`)
/// and scores it.
public enum DetectorTrainingWorkflow {
    /// Whether `path` is an object-detection dataset: a file (an annotations document), or a folder with an
    /// `annotations.json` in it or in its `Training Data/`.
    public static func isDetectionDataset(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return false }
        if !isFolder.boolValue { return path.lowercased().hasSuffix(".json") }
        return [path, path + "/Training Data"].contains { folder in
            FileManager.default.fileExists(atPath: folder + "/" + AnnotationReader.fileName)
        }
    }

    /// The training set and the testing set (if any) that `request` names.
    public static func annotationSets(_ request: DetectorTrainingWorkflowRequest) throws(WorkbenchError)
        -> (training: AnnotationSet, testing: AnnotationSet?)
    {
        let path = request.datasetPath
        let trainingFolder = path + "/Training Data"
        let read = { (path: String) throws(WorkbenchError) in
            try AnnotationReader.readFileOrFolder(path, maximumPixels: request.features.maximumPixels)
        }
        if FileManager.default.fileExists(atPath: trainingFolder + "/" + AnnotationReader.fileName) {
            let testingFolder = path + "/Testing Data"
            let testingPath =
                request.testingPath
                ?? (FileManager.default.fileExists(atPath: testingFolder + "/" + AnnotationReader.fileName) ? testingFolder : nil)
            return (try read(trainingFolder), try testingPath.map(read))
        }
        return (try read(path), try request.testingPath.map(read))
    }

    /// Where the model goes by default: named after the dataset folder (an annotations file's folder), as a
    /// classifier's is.
    public static func defaultModelPath(dataset: String) -> String {
        var isFolder: ObjCBool = false
        let folder =
            FileManager.default.fileExists(atPath: dataset, isDirectory: &isFolder) && !isFolder.boolValue
            ? (dataset as NSString).deletingLastPathComponent : dataset
        return TrainingWorkflow.defaultModelPath(dataset: folder.isEmpty ? "." : folder)
    }

    /// Checks the outputs, reads the annotations and the backbone, trains, scores and writes the model file (then
    /// the JSON report). Progress goes to `events`. Nothing is written when training fails.
    public static func run(
        _ request: DetectorTrainingWorkflowRequest, events: (DetectorTrainingEvent) -> Void = { _ in }
    ) throws(WorkbenchError) -> DetectorTrainingWorkflowResult {
        let (backbone, features) = (request.backbone, request.features)
        let modelPath = request.modelPath ?? defaultModelPath(dataset: request.datasetPath)
        let pagePath = request.page.path(modelPath: modelPath)
        let sets = try annotationSets(request)
        let read = [sets.training, sets.testing].compactMap { $0 }.flatMap { [$0.file] + $0.allImages.map(\.path) }
        let inputs = [request.datasetPath, request.testingPath, backbone.filePath].compactMap { $0 } + read
        try WritableOutput.checkConflicts(inputs: inputs, outputs: [modelPath, request.reportPath, pagePath])
        for path in [modelPath, request.reportPath, pagePath].compactMap({ $0 }) { try WritableOutput.check(path) }
        // Checked first, so a bad SOURCE_DATE_EPOCH fails before the long part of the run.
        let creationDate = TrainingRun.iso8601(try TrainingRun.reproducibleNow())
        var training = DetectorTrainingRequest(
            training: sets.training, testing: sets.testing, backbone: try backbone.load(),
            featureSettings: features, inputSide: request.inputSide, crops: request.crops,
            schedule: request.schedule, fineTuning: request.fineTuning,
            refit: request.refit)
        training.schedule.threads = max(1, request.schedule.threads)
        let result = try DetectorTrainingRun.run(training, progress: events)
        let report = DetectorTrainingReport(result, request: training)
        let model = result.detector.modelFile(
            backbone: result.backbone, trainingReportJSON: try ReportJSON.text(report.modelFileCopy),
            creationDate: creationDate, workbenchVersion: WorkbenchInfo.version)
        let replacedModel = OutputFile.replacesFile(path: modelPath)
        try WorkbenchError.passingOn { try model.write(path: modelPath) }
        if let reportPath = request.reportPath {
            let text = try ReportJSON.text(report)
            try WorkbenchError.passingOn { try AtomicFile.write(text: text, to: reportPath) }
        }
        if let pagePath {
            var page = page(result, dataset: request.datasetPath, modelPath: modelPath)
            page.training = trainingSection(result, report: report, training: training)
            try ModelReports.write(page.html(), to: pagePath)
        }
        return DetectorTrainingWorkflowResult(
            result: result, report: report, modelPath: modelPath, pagePath: pagePath,
            replacedModel: replacedModel)
    }

    /// One sentence on what `--fine-tune` did, for the page; nil without it.
    static func fineTuningLine(_ fineTuning: DetectorFineTuningOutcome?) -> String? {
        guard let fineTuning else { return nil }
        let frozen = String(format: "%.3f", fineTuning.frozenHeldOutMeanAveragePrecision50)
        guard fineTuning.chosenEpoch > 0 else {
            return
                "Fine-tuned blocks \(DetectorBackboneTop.firstBlock)–15 for \(fineTuning.epochs.count) epochs: none beat the frozen head's held-out mAP@0.5 (\(frozen)), so the frozen model is kept."
        }
        let kept = String(format: "%.3f", fineTuning.epochs[fineTuning.chosenEpoch - 1].heldOutMeanAveragePrecision50)
        return
            "Fine-tuned blocks \(DetectorBackboneTop.firstBlock)–15 with the head: epoch \(fineTuning.chosenEpoch) of \(fineTuning.epochs.count) kept (held-out mAP@0.5 \(frozen) frozen, \(kept) fine-tuned)."
    }

    /// The page: the testing pictures when there are any, else the held-out ones (which chose the epoch and the
    /// threshold, so their numbers flatter the detector, as the page says).
    static func page(_ result: DetectorTrainingResult, dataset: String, modelPath: String) -> DetectorReportPage {
        let detector = result.detector
        let (pictures, which) =
            result.testingPictures.map { ($0, "the \(Markup.count($0.count, "testing picture"))") }
            ?? (
                result.heldOutPictures,
                "the \(Markup.count(result.heldOutPictures.count, "held-out picture")) (they chose the epoch and the threshold: no testing pictures were given)"
            )
        let subtitle = [
            "Model \(Markup.isolate(modelPath)), "
                + (result.refit == nil
                    ? "trained on \(Markup.count(result.trainingImageCount, "picture")) of \(Markup.isolate(dataset)); epoch \(result.chosenEpoch) of \(result.epochs.count)"
                    : "from \(Markup.isolate(dataset)); epoch \(result.chosenEpoch) of \(result.epochs.count) chosen on the held-out pictures")
                + ", input \(detector.inputSide) × \(detector.inputSide).",
            fineTuningLine(result.fineTuning),
            result.refit.map {
                "Refitted on all \(Markup.count($0.pictures, "training picture")) for \(Markup.count($0.epochs, "epoch")) (\($0.length.phrase)); the held-out scores are the chosen epoch's, before the refit."
            },
            "Scored on \(which).",
        ].compactMap { $0 }
        return DetectorReports.page(
            title: "Detector: \(Markup.isolate((dataset as NSString).lastPathComponent))", subtitle: subtitle,
            pictures: pictures.map { DetectorReports.TestedPicture(path: $0.path, evaluated: $0.evaluated) },
            labels: detector.labels, threshold: detector.threshold)
    }
}
