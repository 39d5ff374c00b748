import Datasets
import FileFormats
import Inference
import LogisticHead
import Models

/// Every readable picture of a dataset with its features and its label probabilities from a head that did not see
/// it: what `workbench doctor` judges a dataset by.
///
/// Training pictures get their cross-validated probabilities: the head's own folds at the strength `train` would
/// choose (`HeldOutSelection`), the probabilities averaged over the repeats; where `train` chooses on one held-out
/// share or on a validation folder, one 5-fold cross-validation at the chosen strength, with the same seed, gives
/// every training picture one. Validation and testing pictures get the probabilities of the head fitted on all
/// training pictures (`FittedHead`), as `train` evaluates them. Probabilities are the uncalibrated softmax: the
/// temperature moves no picture's ranking within a label.
public struct OutOfSamplePredictions: Sendable {
    /// The model's labels (the training labels, natural order).
    public var labels: [String]
    /// Each picture's file, as found under the folder the user gave.
    public var paths: [String]
    /// Each picture's split: "training", "validation" or "testing".
    public var splits: [String]
    /// Each picture's folder label, an index into `labels`.
    public var truths: [Int]
    /// `[paths.count, labels.count]`, row-major, each row summing to 1.
    public var probabilities: [Float]
    /// `[paths.count, EfficientNetLite0.featureCount]`, row-major, the backbone's pooled features (cached).
    public var features: [Float]
    /// The L2 strength of the head.
    public var l2: Double
    /// How the probabilities were made, for a report.
    public var method: String
    /// The dataset's folders.
    public var layout: DatasetLayout
    /// Pictures per label and split, as scanned.
    public var counts: [TrainingReport.LabelCounts]
    /// Files that could not be read, and why.
    public var unreadable: [TrainingReport.Problem]
    /// Today's dataset warnings (identical files across splits, unbalanced labels, files that are no pictures).
    public var datasetWarnings: [DatasetWarning]

    /// Folds of the cross-validation made when `train`'s own choice holds out only some training pictures.
    public static let folds = HeldOutPlan.defaultFolds

    /// Scans `request`'s dataset (its `datasetPath`, `testingPath`, `validationPath`, `seed`, `l2`, `strict`), extracts
    /// the features through `extractor` (cached as `train` caches them) and predicts every picture out of sample.
    public static func run(
        _ request: TrainingRequest, extractor: FeatureExtractor, events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> OutOfSamplePredictions {
        let scan = try TrainingScan.scan(request, events: events)
        let features = try TrainingFeatures.extract(scan, extractor: extractor, events: events)
        events(.fitting)
        let classCount = scan.labels.count, dimension = EfficientNetLite0.featureCount
        let heldOut = try HeldOutSelection.choose(request, scan: scan, features: features, threads: extractor.settings.threads)
        let head = FittedHead.fit(request, training: features.training, heldOut: heldOut, classCount: classCount)
        let training = features.training
        var method = ""
        var selection = heldOut.selection
        if case .crossValidation? = selection?.plan {
            method = heldOut.source
        } else {
            selection = L2Search.select(
                grid: [head.settings.l2], features: training.features, labels: training.labels, count: training.count,
                dimension: dimension, classCount: classCount, plan: .crossValidation(folds: folds, repeats: 1),
                seed: request.seed, settings: head.settings, threads: extractor.settings.threads)
            method = "\(folds)-fold cross-validation of training, seed \(request.seed)"
        }
        let trainingProbabilities = averaged(selection, count: training.count, classCount: classCount)
        func predicted(_ set: LabeledFeatures) -> [Float] {
            Softmax.probabilities(logits: head.logits(set), count: set.count, classCount: classCount)
        }
        let validation = features.validation, testing = features.testing
        method += "; validation and testing by the head fitted on all training pictures"
        return OutOfSamplePredictions(
            labels: scan.labels, paths: training.paths + validation.paths + testing.paths,
            splits: [String](repeating: "training", count: training.count) + [String](repeating: "validation", count: validation.count)
                + [String](repeating: "testing", count: testing.count),
            truths: training.labels + validation.labels + testing.labels,
            probabilities: trainingProbabilities + predicted(validation) + predicted(testing),
            features: training.features + validation.features + testing.features,
            l2: head.settings.l2, method: method, layout: scan.layout,
            counts: TrainingRun.counts(labels: scan.labels, items: scan.items),
            unreadable: features.unreadable, datasetWarnings: scan.datasetWarnings)
    }

    /// Each training sample's held-out probabilities, averaged over the repeats that held it out, `[count, classCount]`.
    static func averaged(_ selection: L2Selection?, count: Int, classCount: Int) -> [Float] {
        var sums = [Double](repeating: 0, count: count * classCount)
        var times = [Int](repeating: 0, count: count)
        if let selection {
            let rows = selection.heldOutSamples.count
            let probabilities = Softmax.probabilities(logits: selection.heldOutLogits, count: rows, classCount: classCount)
            for (row, sample) in selection.heldOutSamples.enumerated() {
                times[sample] += 1
                for label in 0..<classCount { sums[sample * classCount + label] += Double(probabilities[row * classCount + label]) }
            }
        }
        var result = [Float](repeating: 1 / Float(max(1, classCount)), count: count * classCount)
        for sample in 0..<count where times[sample] > 0 {
            for label in 0..<classCount {
                result[sample * classCount + label] = Float(sums[sample * classCount + label] / Double(times[sample]))
            }
        }
        return result
    }
}
