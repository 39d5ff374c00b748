import ClassifierTraining
import FileFormats
import Foundation
import Inference
import Reports

/// The files `TrainingWorkflow.run` writes, in this order: the model, the JSON report, the HTML page. The model
/// comes first, so a report never describes a model that was not written.
public struct TrainingOutput: Sendable {
    /// Where the HTML page goes.
    public enum Page: Sendable, Equatable {
        /// Beside the model, named after it (`Drawings.html`); none for a model written to a device or FIFO
        /// (`-o /dev/null`), which has no folder of its own to put a page in.
        case besideModel
        /// At this path.
        case at(String)
        /// No page.
        case none

        /// The page's path for a model written to `modelPath`; nil for none.
        public func path(modelPath: String) -> String? {
            switch self {
            case .besideModel:
                return OutputFile.writesThrough(path: modelPath) ? nil : (modelPath as NSString).deletingPathExtension + ".html"
            case .at(let path): return path
            case .none: return nil
            }
        }
    }

    /// The model file; nil is `TrainingWorkflow.defaultModelPath(dataset:)`.
    public var model: String?
    /// The full report as JSON (`ReportJSON`), when wanted.
    public var report: String?
    /// The HTML page (`ModelReports.trainingPage`).
    public var page = Page.besideModel

    /// The model beside the dataset's default name, its page beside it, no JSON report.
    public init(model: String? = nil, report: String? = nil, page: Page = .besideModel) {
        self.model = model
        self.report = report
        self.page = page
    }
}

/// What `workbench train` is asked to do: the training run, the files it writes, and the network it starts from.
public struct TrainingWorkflowRequest: Sendable {
    /// The run itself: the dataset, the splits, the head's and fine-tuning's settings (`ClassifierTraining`).
    public var training: TrainingRequest
    /// The files to write: by default the dataset's default model name, its page beside it, no JSON report.
    public var output = TrainingOutput()
    /// The network the features come from; by default set-up's pretrained weights.
    public var backbone = BackboneSource.pretrained(path: nil)
    /// Threads, pixel limit and feature cache use of the network.
    public var features = FeatureSettings()

    /// Trains on the dataset at `datasetPath` with the command's defaults.
    public init(datasetPath: String) { self.init(TrainingRequest(datasetPath: datasetPath)) }

    /// Runs `training`, writing the default files.
    public init(_ training: TrainingRequest) { self.training = training }
}

/// A training run `TrainingWorkflow.run` finished, and the files it wrote.
public struct TrainingWorkflowResult: Sendable {
    /// The report, the model file and the predictions.
    public var result: TrainingResult
    /// The model file written.
    public var modelPath: String
    /// The JSON report written, if asked for.
    public var reportPath: String?
    /// The HTML page written, if any.
    public var pagePath: String?
    /// Whether the model file replaced a file already at `modelPath` (a model trained before).
    public var replacedModel = false
}

/// `workbench train`: a classifier from folders of images. The training itself is `ClassifierTraining.TrainingRun`
/// (which a program can call to train without writing anything); this reads the backbone and writes the files.
public enum TrainingWorkflow {
    /// `workbench train`: checks that the request's outputs can be written and replace no input nor each other,
    /// reads the backbone, trains (`TrainingRun`) and writes the model, then the JSON report, then the HTML page,
    /// returning what it wrote. Nothing is written when training fails; each file is written whole (`OutputFile`,
    /// `AtomicFile`), and a failed write leaves the files written before it.
    public static func run(
        _ request: TrainingWorkflowRequest, events: (TrainingEvent) -> Void = { _ in }
    ) throws(WorkbenchError) -> TrainingWorkflowResult {
        let output = request.output, training = request.training
        let modelPath = output.model ?? defaultModelPath(dataset: training.datasetPath)
        let pagePath = output.page.path(modelPath: modelPath)
        let folders = [training.datasetPath, training.testingPath, training.validationPath, request.backbone.filePath].compactMap { $0 }
        let files = try TrainingRun.resolveLayout(training).files
        try WritableOutput.checkConflicts(inputs: folders + files, outputs: [modelPath, output.report, pagePath])
        for path in [modelPath, output.report, pagePath].compactMap({ $0 }) { try WritableOutput.check(path) }

        let extractor = FeatureExtractor(backbone: try request.backbone.load(), settings: request.features)
        let result = try TrainingRun.run(training, extractor: extractor, events: events)
        let replacedModel = OutputFile.replacesFile(path: modelPath)
        try WorkbenchError.passingOn { try result.modelFile.write(path: modelPath) }
        if let report = output.report {
            let text = try ReportJSON.text(result.report)
            try WorkbenchError.passingOn { try AtomicFile.write(text: text, to: report) }
        }
        if let pagePath {
            try ModelReports.write(try ModelReports.trainingPage(result, modelPath: modelPath, extractor: extractor), to: pagePath)
        }
        return TrainingWorkflowResult(
            result: result, modelPath: modelPath, reportPath: output.report, pagePath: pagePath,
            replacedModel: replacedModel)
    }

    /// `Name.wbmodel` in the working directory: the dataset folder's name (its parent's for "Training Data" or
    /// "train") with its first letter upper-cased, as a model is named after what it tells apart
    /// (datasets/drawings gives Drawings.wbmodel, the name the examples and the README use).
    public static func defaultModelPath(dataset: String) -> String {
        var url = URL(fileURLWithPath: dataset).standardizedFileURL
        if ["training data", "train"].contains(url.lastPathComponent.lowercased()) { url.deleteLastPathComponent() }
        let name = url.lastPathComponent.isEmpty || url.lastPathComponent == "/" ? "model" : url.lastPathComponent
        return "\(name.prefix(1).uppercased())\(name.dropFirst()).wbmodel"
    }
}
