import Augmentation
import ClassifierTraining
import Datasets
import DetectionAnnotations
import FileFormats
import Foundation
import Inference
import LogisticHead
import TensorCore

/// `workbench classify`: a trained model's answer on each image file, in input order.
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
    /// The model.
    public var model: ClassifierSource
    /// Threads, pixel limit and feature cache use of the model's network.
    public var features = FeatureSettings()

    /// Classifies `inputs` with `model`, skipping unreadable files.
    public init(inputs: [String], model: ClassifierSource) {
        self.inputs = inputs
        self.model = model
    }
}

/// How a classify run went.
public struct ClassifyResult: Sendable, Equatable {
    /// Images of the run, unreadable entries included.
    public var images: Int
    /// Images that could not be classified (each reported as `.skipped`).
    public var failed: Int
}

extension ClassificationWorkflow {
    /// `workbench classify`: reads the model, checks the request against it (the label is one of its labels, a
    /// threshold is there to abstain with), gathers the images (`ImageFileList.gather`) and delivers each prediction in input
    /// order. Unreadable files are reported and counted, or with `strict` the first is thrown. When `deliver`
    /// returns false (its output failed) no more files are started.
    public static func run(
        _ request: ClassifyRequest, events: (ImageFilesEvent) -> Void = { _ in }, deliver: (Prediction) -> Bool
    ) throws(WorkbenchError) -> ClassifyResult {
        let classifier = try request.model.load()
        let extractor = FeatureExtractor(backbone: classifier.backbone, settings: request.features)
        if let label = request.label, !classifier.labels.contains(label) {
            throw WorkbenchError(
                path: classifier.path, reason: "the model has no label '\(label)' (labels: \(classifier.labels.joined(separator: ", ")))")
        }
        if request.abstains, classifier.confidenceThreshold == nil {
            throw WorkbenchError(
                path: classifier.path, reason: "the model has no confidence threshold to abstain below: train it with a target precision")
        }
        let list = try ImageFileList.gather(request.inputs, strict: request.strict, events: events)
        var outcome = ClassifyResult(images: list.count, failed: list.unreadable.count)
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
