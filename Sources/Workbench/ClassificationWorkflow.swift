import ClassifierTraining
import Datasets
import FileFormats
import Foundation
import Inference
import TensorCore
import Training

/// `workbench classify` and `workbench evaluate`: a trained model over image files.
public enum ClassificationWorkflow {
    /// Classifies `paths` on the extractor's worker threads, delivering predictions in input order. When
    /// `deliver` returns false no more files are started.
    public static func classify(
        paths: [String], classifier: Classifier, extractor: FeatureExtractor,
        deliver: (_ index: Int, _ path: String, _ result: Result<Prediction, WorkbenchError>) -> Bool
    ) {
        extractor.extract(paths: paths) { index, path, result in
            deliver(index, path, result.flatMap { features in
                let probabilities = classifier.probabilities(features: features, count: 1)
                // A finite model can still overflow on extreme features; NaN is no probability to report.
                guard probabilities.allSatisfy(\.isFinite) else {
                    return .failure(WorkbenchError(path: path, reason: "the model's probabilities are not finite numbers (overflow in its weights)"))
                }
                let best = probabilities.indexOfMaximum
                return .success(Prediction(path: path, label: classifier.labels[best], confidence: probabilities[best],
                                           probabilities: probabilities))
            })
        }
    }

    /// Evaluates `folder`: its label subfolders (or, for a dataset folder, its testing split) against the model.
    /// A label the model does not know is an error naming it. Unreadable files are skipped with a warning each
    /// and listed in the result; with `strict` the first one is the error instead. With `shard`, only that part of
    /// the images is evaluated (`InputSharding`).
    public static func evaluate(
        folder: String, classifier: Classifier, extractor: FeatureExtractor, strict: Bool = false, shard: Shard? = nil,
        progress: (_ done: Int, _ total: Int) -> Void, warning: (String) -> Void
    ) throws(WorkbenchError) -> EvaluationResult {
        let labelled: ImageFolder
        do throws(DatasetError) {
            // A whole dataset folder is evaluated on its testing split; otherwise the folder's own label subfolders.
            if let testing = (try? DatasetLayout.resolve(path: folder))?.testing {
                labelled = testing
            } else {
                labelled = try ImageFolder.scan(path: folder)
            }
        } catch {
            throw WorkbenchError(error)
        }
        let labelIndex = Dictionary(uniqueKeysWithValues: classifier.labels.enumerated().map { ($1, $0) })
        var paths: [String] = [], truths: [Int] = []
        for labelFolder in labelled.classes {
            guard let index = labelIndex[labelFolder.label] else {
                throw WorkbenchError(path: labelFolder.path, reason: "label '\(labelFolder.label)' is not one of the model's labels (\(classifier.labels.joined(separator: ", ")))")
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
        classify(paths: paths, classifier: classifier, extractor: extractor) { index, path, result in
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
        return EvaluationResult(evaluation: evaluation, labels: classifier.labels, unreadable: skipped.problems,
                                predictions: SplitPredictions(paths: usedPaths, truths: usedTruths, probabilities: probabilities))
    }
}
