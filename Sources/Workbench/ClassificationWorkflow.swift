import Augmentation
import ClassifierTraining
import Datasets
import DetectionAnnotations
import FileFormats
import Foundation
import Inference
import LogisticHead
import TensorCore

/// `workbench classify` and `workbench evaluate`: a trained model over image files.
public enum ClassificationWorkflow {
    /// Classifies `paths` on the extractor's worker threads, delivering predictions in input order. When
    /// `deliver` returns false no more files are started. With `views` (test-time augmentation) each prediction is
    /// the mean of the views' probabilities (`Classifier.probabilities(features:count:views:)`).
    public static func classify(
        paths: [String], classifier: Classifier, extractor: FeatureExtractor, views: TestTimeViews? = nil,
        deliver: (_ index: Int, _ path: String, _ result: Result<Prediction, WorkbenchError>) -> Bool
    ) {
        extractor.extract(paths: paths, views: views) { index, path, result in
            deliver(
                index, path,
                result.flatMap { features in
                    let probabilities =
                        views.map { classifier.probabilities(features: features, count: 1, views: $0) }
                        ?? classifier.probabilities(features: features, count: 1)
                    // A finite model can still overflow on extreme features; NaN is no probability to report.
                    guard probabilities.allSatisfy(\.isFinite) else {
                        return .failure(
                            WorkbenchError(path: path, reason: "the model's probabilities are not finite numbers (overflow in its weights)"))
                    }
                    let best = probabilities.indexOfMaximum
                    return .success(
                        Prediction(
                            path: path, label: classifier.labels[best], confidence: probabilities[best],
                            probabilities: probabilities))
                })
        }
    }

    /// Evaluates `folder`: its label subfolders (or, for a dataset folder, its testing split) against the model.
    /// A label the model does not know is an error naming it, and so is an object-detection folder (a detector's
    /// data: `DetectorEvaluationWorkflow`). Unreadable files are skipped with a warning each
    /// and listed in the result; with `strict` the first one is the error instead. With `shard`, only that part of
    /// the images is evaluated (`InputSharding`).
    public static func evaluate(
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
        // A whole dataset folder is evaluated on its testing split; otherwise the folder's own label subfolders.
        let labelled = try WorkbenchError.passingOn {
            try (try? DatasetLayout.resolve(path: folder))?.testing ?? ImageFolder.scan(path: folder)
        }
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
        classify(paths: paths, classifier: classifier, extractor: extractor, views: views) { index, path, result in
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

/// What `workbench classify` is asked to do.
public struct ClassifyRequest: Sendable {
    /// Image files and folders (walked recursively, `ImageFileList.expand`).
    public var inputs: [String]
    /// A label whose confidence is reported whatever the best label is; must be one of the model's.
    public var label: String?
    /// Whether answers below the model's confidence threshold become "unknown"; the model must have one
    /// (`train --target-precision`).
    public var abstains = false
    /// Whether the first file that cannot be read ends the run instead of being skipped and counted.
    public var strict = false
    /// Test-time augmentation: true averages every image's answers over the model's test-time views (`--tta`),
    /// false never does (`--no-tta`), nil does what the model's record says (`train --tta` stores it).
    public var testTimeAugmentation: Bool?

    /// Classifies `inputs`, skipping unreadable files.
    public init(inputs: [String]) { self.inputs = inputs }
}

/// How a classify run went.
public struct ClassifyOutcome: Sendable, Equatable {
    /// Images of the run, unreadable entries included.
    public var images: Int
    /// Images that could not be classified (each reported as `.skipped`).
    public var failed: Int
}

extension ClassificationWorkflow {
    /// `workbench classify`: checks the request against the model (the label is one of its labels, a threshold is
    /// there to abstain with), gathers the images (`ImageFileList.gather`) and delivers each prediction in input
    /// order. Unreadable files are reported and counted, or with `strict` the first is thrown. When `deliver`
    /// returns false (its output failed) no more files are started.
    public static func classify(
        _ request: ClassifyRequest, classifier: Classifier, extractor: FeatureExtractor,
        events: (ImageFilesEvent) -> Void, deliver: (Prediction) -> Bool
    ) throws(WorkbenchError) -> ClassifyOutcome {
        if let label = request.label, !classifier.labels.contains(label) {
            throw WorkbenchError(
                path: classifier.path, reason: "the model has no label '\(label)' (labels: \(classifier.labels.joined(separator: ", ")))")
        }
        if request.abstains, classifier.confidenceThreshold == nil {
            throw WorkbenchError(
                path: classifier.path, reason: "the model has no confidence threshold to abstain below: train it with a target precision")
        }
        let list = try ImageFileList.gather(request.inputs, strict: request.strict, events: events)
        var outcome = ClassifyOutcome(images: list.count, failed: list.unreadable.count)
        var stop: WorkbenchError?
        events(.started(images: list.files.count))
        let views = classifier.testTimeViews(requested: request.testTimeAugmentation)
        classify(paths: list.files, classifier: classifier, extractor: extractor, views: views) { index, _, result in
            defer { events(.progress(done: index + 1, total: list.files.count)) }
            switch result {
            case .success(let prediction):
                return deliver(prediction)
            case .failure(let error):
                outcome.failed += 1
                if request.strict {
                    stop = error
                    return false
                }
                events(.skipped(error))
                return true
            }
        }
        if let stop { throw stop }
        return outcome
    }
}

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

    /// Evaluates `folder`, every image, writing no page.
    public init(folder: String) { self.folder = folder }
}

extension ClassificationWorkflow {
    /// `workbench evaluate`: `evaluate(folder:...)` as `request` asks, then the page when one is asked for (its path
    /// is checked before the images are read, and must be neither the model nor the folder).
    public static func evaluate(
        _ request: EvaluationRequest, classifier: Classifier, extractor: FeatureExtractor,
        progress: (_ done: Int, _ total: Int) -> Void, warning: (String) -> Void
    ) throws(WorkbenchError) -> EvaluationResult {
        try WritableOutput.checkConflicts(inputs: [classifier.path, request.folder], outputs: [request.page])
        if let page = request.page { try WritableOutput.check(page) }
        let result = try evaluate(
            folder: request.folder, classifier: classifier, extractor: extractor, strict: request.strict,
            shard: request.shard,
            views: classifier.testTimeViews(requested: request.testTimeAugmentation),
            progress: progress, warning: warning)
        if let page = request.page {
            try ModelReports.write(
                try ModelReports.evaluationPage(
                    result, folder: request.folder, classifier: classifier,
                    extractor: extractor), to: page)
        }
        return result
    }
}
