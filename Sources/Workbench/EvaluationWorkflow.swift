import ClassifierTraining
import Datasets
import DetectionAnnotations
import FileFormats
import Foundation
import Inference
import TensorCore

/// What `workbench evaluate` is asked to do.
public struct EvaluationRequest: Sendable {
    /// A folder of label subfolders, or a dataset folder (its testing split is evaluated).
    public var folder: String
    /// Whether the first file that cannot be read ends the run instead of being skipped and listed.
    public var strict = false
    /// Only this part of the images (`--shard I/N`); nil is all of them.
    public var shard: Shard?
    /// Also write the HTML page (`ModelReports.evaluationPage`) here; checked before any work.
    public var page: String?
    /// Test-time augmentation: true averages over the model's test-time views (`--tta`), false never does
    /// (`--no-tta`), nil does what the model's record says.
    public var testTimeAugmentation: Bool?
    /// The model.
    public var model: ClassifierSource
    /// Threads, pixel limit and feature cache use of the model's network.
    public var features = FeatureSettings()

    /// Evaluates `folder` with `model`, every image, writing no page.
    public init(folder: String, model: ClassifierSource) {
        self.folder = folder
        self.model = model
    }
}

/// What an evaluation reports as it goes.
public enum EvaluationEvent: Sendable {
    /// Images scored so far, of the run's total.
    case progress(done: Int, total: Int)
    /// Something worth a line: an unreadable image skipped.
    case warning(String)
}

/// `workbench evaluate`: a trained classifier scored on a folder of labelled images (or a dataset's testing split).
public enum EvaluationWorkflow {
    /// `workbench evaluate`: reads the model, scores the folder as `request` asks, then writes the page when one is
    /// asked for (its path is checked before the images are read, and must be neither the model nor the folder).
    public static func run(_ request: EvaluationRequest, events: (EvaluationEvent) -> Void = { _ in }) throws(WorkbenchError) -> EvaluationResult {
        let classifier = try request.model.load()
        let extractor = FeatureExtractor(backbone: classifier.backbone, settings: request.features)
        // A folder that cannot be scanned is `evaluate`'s to name; its images are what no page may replace.
        let images = (try? labelledFolder(request.folder)).map { $0.classes.flatMap(\.files) + $0.unreadable.map(\.path) } ?? []
        try WritableOutput.checkConflicts(inputs: [classifier.path, request.folder] + images, outputs: [request.page])
        if let page = request.page { try WritableOutput.check(page) }
        let result = try evaluate(
            folder: request.folder, classifier: classifier, extractor: extractor, strict: request.strict,
            shard: request.shard, views: classifier.testTimeViews(requested: request.testTimeAugmentation),
            progress: { events(.progress(done: $0, total: $1)) }, warning: { events(.warning($0)) })
        if let page = request.page {
            try ModelReports.write(
                try ModelReports.evaluationPage(result, folder: request.folder, classifier: classifier, extractor: extractor), to: page)
        }
        return result
    }

    /// The labelled images `folder` holds: a whole dataset folder's testing split, otherwise the folder's own label
    /// subfolders.
    static func labelledFolder(_ folder: String) throws(WorkbenchError) -> ImageFolder {
        try WorkbenchError.passingOn { try (try? DatasetLayout.resolve(path: folder))?.testing ?? ImageFolder.scan(path: folder) }
    }

    /// Evaluates `folder`: its label subfolders (or, for a dataset folder, its testing split) against the model.
    /// A label the model does not know is an error naming it, and so is an object-detection folder (a detector's
    /// data: `DetectorEvaluationWorkflow`). Unreadable files are skipped with a warning each
    /// and listed in the result; with `strict` the first one is the error instead. With `shard`, only that part of
    /// the images is evaluated (`InputSharding`).
    static func evaluate(
        folder: String, classifier: Classifier, extractor: FeatureExtractor, strict: Bool = false, shard: Shard? = nil,
        views: TestTimeViews? = nil, progress: (_ done: Int, _ total: Int) -> Void, warning: (String) -> Void
    ) throws(WorkbenchError) -> EvaluationResult {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
            DetectorTrainingWorkflow.isDetectionDataset(folder)
        {
            throw WorkbenchError(
                path: folder,
                reason: "is an object-detection dataset (\(AnnotationReader.fileName)); "
                    + "\(classifier.path) is a classifier, evaluated on folders of labelled images")
        }
        let labelled = try labelledFolder(folder)
        let labelIndex = Dictionary(uniqueKeysWithValues: classifier.labels.enumerated().map { ($1, $0) })
        var paths: [String] = [], truths: [Int] = []
        for labelFolder in labelled.classes {
            guard let index = labelIndex[labelFolder.label] else {
                throw WorkbenchError(
                    path: labelFolder.path,
                    reason: "label '\(labelFolder.label)' is not one of the model's labels (\(classifier.labels.joined(separator: ", ")))")
            }
            paths += labelFolder.files
            truths += Array(repeating: index, count: labelFolder.files.count)
        }
        var unreadable = labelled.unreadable.map { TrainingReport.Problem(path: $0.path, reason: $0.reason) }
        guard !paths.isEmpty else { throw WorkbenchError(path: folder, reason: "no labelled images (expected one subfolder of images per label)") }
        if let shard {
            // Entries that cannot be read are split with the images, so each is reported by one task only.
            let kept = Set(InputSharding.imagePositions(paths + unreadable.map(\.path), shard: shard))
            let mine = paths.indices.filter { kept.contains($0) }
            guard !mine.isEmpty else { throw WorkbenchError(path: folder, reason: "shard \(shard) holds none of the \(paths.count) images") }
            unreadable = unreadable.indices.filter { kept.contains(paths.count + $0) }.map { unreadable[$0] }
            (paths, truths) = (mine.map { paths[$0] }, mine.map { truths[$0] })
        }
        var skipped = try UnreadableFiles(scanned: unreadable, strict: strict, warning: warning)
        var usedPaths: [String] = [], usedTruths: [Int] = [], probabilities: [Float] = []
        ClassificationWorkflow.classify(paths: paths, classifier: classifier, extractor: extractor, views: views) { index, path, result in
            progress(index + 1, paths.count)
            switch result {
            case .success(let prediction):
                usedPaths.append(path)
                usedTruths.append(truths[index])
                probabilities += prediction.probabilities
                return true
            case .failure(let error):
                return skipped.skip(error, path: path, warning: warning)
            }
        }
        if let stopping = skipped.stopping { throw stopping }
        let evaluation = Evaluation.evaluate(labels: classifier.labels, paths: usedPaths, truths: usedTruths, probabilities: probabilities)
        var result = EvaluationResult(
            evaluation: evaluation, labels: classifier.labels, unreadable: skipped.problems,
            predictions: SplitPredictions(paths: usedPaths, truths: usedTruths, probabilities: probabilities))
        result.viewsPerImage = views?.count ?? 1
        result.scoredFolder = labelled.path
        result.isTestingSplit = labelled.path != folder
        return result
    }
}
