import ClassifierTraining
import FileFormats
import Foundation
import Inference
import Reports

/// The files `TrainingWorkflow.train` writes, in this order: the model, the JSON report, the HTML page. The model
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

/// A training run `TrainingWorkflow.train` finished, and the files it wrote.
public struct TrainedModelFiles: Sendable {
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

/// `workbench train`: a classifier from folders of images. `run` is the training itself
/// (`ClassifierTraining.TrainingRun`); `train` also reads the backbone and writes the files.
public enum TrainingWorkflow {
    /// Trains a model as `request` asks, reporting progress to `events`; the model is returned, not written.
    public static func run(
        _ request: TrainingRequest, extractor: FeatureExtractor, events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> TrainingResult {
        try TrainingRun.run(request, extractor: extractor, events: events)
    }

    /// `workbench train`: checks that `output`'s files can be written and replace no input nor each other, reads the backbone, trains (`run`) and
    /// writes the model, then the JSON report, then the HTML page, returning what it wrote. Nothing is written when
    /// training fails; a failed write leaves the files written before it.
    public static func train(
        _ request: TrainingRequest, output: TrainingOutput = TrainingOutput(),
        backbone: BackboneSource = .pretrained(path: nil), features: FeatureSettings = FeatureSettings(),
        events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> TrainedModelFiles {
        let modelPath = output.model ?? defaultModelPath(dataset: request.datasetPath)
        let pagePath = output.page.path(modelPath: modelPath)
        let inputs = [request.datasetPath, request.testingPath, request.validationPath, backbone.filePath].compactMap { $0 }
        try WritableOutput.checkConflicts(inputs: inputs, outputs: [modelPath, output.report, pagePath])
        for path in [modelPath, output.report, pagePath].compactMap({ $0 }) { try WritableOutput.check(path) }

        let extractor = FeatureExtractor(backbone: try backbone.load(), settings: features)
        let result = try run(request, extractor: extractor, events: events)
        let replacedModel = OutputFile.replacesFile(path: modelPath)
        try WorkbenchError.passingOn { try result.modelFile.write(path: modelPath) }
        if let report = output.report {
            let text = try ReportJSON.text(result.report)
            try WorkbenchError.passingOn { try AtomicFile.write(text: text, to: report) }
        }
        if let pagePath {
            try ModelReports.write(try ModelReports.trainingPage(result, modelPath: modelPath, extractor: extractor), to: pagePath)
        }
        return TrainedModelFiles(
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
