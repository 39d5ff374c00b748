import Augmentation
import Datasets
import FileFormats
import Foundation
import ImageCodecs
import Inference
import LogisticHead
import Models
import TensorCore

// The steps of `TrainingRun.run`, in the order it calls them. Each takes what the earlier steps made and
// returns a value the later ones read, so a step can be inserted between two without touching the others.

/// The split an image belongs to.
enum TrainingSplit: Int {
    case training, validation, testing
}

/// One image of the dataset: its file, its label (an index into the labels) and its split.
struct TrainingItem {
    var path: String
    var label: Int
    var split: TrainingSplit
}

/// Step 1: the dataset folders resolved and checked, every image once with its split and label.
struct TrainingScan {
    var layout: DatasetLayout
    var labels: [String]
    /// Training, then validation, then testing images; features come back in this order.
    var items: [TrainingItem]
    /// Entries the scan found but cannot read: unreadable images like those that fail to decode.
    var unreadable: UnreadableFiles
    var datasetWarnings: [DatasetWarning]

    /// Resolves the request's folders and reports the counts, the unreadable entries and the dataset's warnings.
    /// With `request.strict` the first unreadable entry stops the run.
    static func scan(_ request: TrainingRequest, events: (TrainingEvent) -> Void) throws(WorkbenchError) -> TrainingScan {
        let layout = try TrainingRun.resolveLayout(request)
        let labels = layout.labels
        let labelIndex = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        var items: [TrainingItem] = []
        var excluded = 0
        var excludedPaths = Set<String>()
        if let list = request.exclusionList { excludedPaths = try WorkbenchError.passingOn { try ExcludedPaths.read(path: list) } }
        func add(_ folder: ImageFolder?, as split: TrainingSplit) {
            for labelFolder in folder?.classes ?? [] {
                for file in labelFolder.files {
                    if !excludedPaths.isEmpty && excludedPaths.contains(ExcludedPaths.standardized(file)) {
                        excluded += 1
                        continue
                    }
                    items.append(TrainingItem(path: file, label: labelIndex[labelFolder.label]!, split: split))
                }
            }
        }
        add(layout.training, as: .training)
        add(layout.validation, as: .validation)
        add(layout.testing, as: .testing)
        if excluded > 0 {
            events(.warning("left out \(excluded) picture(s) \(request.exclusionList ?? "") names"))
            let trained = Set(items.filter { $0.split == .training }.map(\.label))
            for (index, label) in labels.enumerated() where !trained.contains(index) {
                throw WorkbenchError(path: layout.training.path, reason: "the exclusion list leaves label '\(label)' without a training picture")
            }
        }
        events(.scanned(counts: TrainingRun.counts(labels: labels, items: items), skipped: layout.skipped))
        let unreadable = try UnreadableFiles(
            scanned: layout.unreadable.map { .init(path: $0.path, reason: $0.reason) },
            strict: request.strict, warning: { events(.warning($0)) })
        let datasetWarnings = DatasetWarnings.check(layout)
        for warning in datasetWarnings { events(.warning("\(warning)")) }
        return TrainingScan(
            layout: layout, labels: labels, items: items, unreadable: unreadable,
            datasetWarnings: datasetWarnings)
    }
}

/// Features of some images, with their labels and files.
struct LabeledFeatures {
    /// `[count, dimension]`, row-major.
    var features: [Float]
    /// Indexes into the model's labels.
    var labels: [Int]
    var paths: [String]
    var count: Int { paths.count }
}

/// Step 2: the features of every readable image, by split.
struct TrainingFeatures {
    var training: LabeledFeatures
    var validation: LabeledFeatures
    var testing: LabeledFeatures
    /// The images whose features were extracted, in scan order.
    var usableItems: [TrainingItem]
    /// The scan's unreadable entries, then the images that failed to decode.
    var unreadable: [TrainingReport.Problem]

    /// Extracts (cached) features in scan order. Unreadable images are warnings, or in a strict run the first one
    /// stops it; a training label left without a readable image is an error.
    static func extract(
        _ scan: TrainingScan, extractor: FeatureExtractor, events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> TrainingFeatures {
        let items = scan.items
        let dimension = EfficientNetLite0.featureCount
        var features: [Float] = []
        features.reserveCapacity(items.count * dimension)
        var usable: [Int] = []
        var unreadable = scan.unreadable
        extractor.extract(paths: items.map(\.path)) { index, path, result in
            events(.features(done: index + 1, total: items.count))
            switch result {
            case .success(let vector):
                features += vector
                usable.append(index)
                return true
            case .failure(let error):
                return unreadable.skip(error, path: path, warning: { events(.warning($0)) })
            }
        }
        if let stopping = unreadable.stopping { throw stopping }
        var readable: [String: Int] = [:]
        for index in usable where items[index].split == .training { readable[scan.labels[items[index].label], default: 0] += 1 }
        do {
            try DatasetLayout.requireReadableImages(in: scan.layout.training, readableCounts: readable)
        } catch {
            throw WorkbenchError("\(error)")
        }

        // Rows of `features` by split.
        var rows: [TrainingSplit: [Int]] = [.training: [], .validation: [], .testing: []]
        for (row, index) in usable.enumerated() { rows[items[index].split]!.append(row) }
        func gather(_ selected: [Int]) -> LabeledFeatures {
            var matrix = [Float](); matrix.reserveCapacity(selected.count * dimension)
            for row in selected { matrix += features[(row * dimension)..<((row + 1) * dimension)] }
            return LabeledFeatures(
                features: matrix, labels: selected.map { items[usable[$0]].label },
                paths: selected.map { items[usable[$0]].path })
        }
        return TrainingFeatures(
            training: gather(rows[.training]!), validation: gather(rows[.validation]!),
            testing: gather(rows[.testing]!), usableItems: usable.map { items[$0] },
            unreadable: unreadable.problems)
    }
}

/// Step 3: the L2 strength chosen on held-out predictions: from the validation folder, or from cross-validation or
/// a held-out share of the training images (which all still go into the final model), or none at all.
struct HeldOutSelection {
    var selection: L2Selection?
    /// Where the held-out predictions came from, for the report.
    var source: String
    /// The true labels and files of the rows of `logits`.
    var truths: [Int]
    var paths: [String]
    /// Distinct held-out images per label.
    var countsPerLabel: [Int]
    /// The held-out logits of the chosen strength, `[truths.count, classCount]`.
    var logits: [Float] { selection?.heldOutLogits ?? [] }

    /// The head's settings before the strength is chosen.
    static func settings(_ request: TrainingRequest) -> LogisticRegressionSettings {
        LogisticRegressionSettings(
            l2: request.l2 ?? TrainingRun.defaultL2, maxIterations: request.maxIterations,
            classWeighting: request.classWeighting)
    }

    /// Scores the strengths (`request.l2` alone, or `L2Search.defaultGrid`) on held-out predictions.
    /// `views` (augmented views of training images) train with their image and are never held out.
    /// A held-out share that holds out no image (every label below `StratifiedSplit.minimumClassSizeForValidation`
    /// training images) is an error: nothing would be chosen on nothing. `fineTuning` says which advice fits.
    static func choose(
        _ request: TrainingRequest, scan: TrainingScan, features: TrainingFeatures, views: DerivedRows = .none,
        threads: Int, fineTuning: Bool = false
    ) throws(WorkbenchError) -> HeldOutSelection {
        let dimension = EfficientNetLite0.featureCount
        let classCount = scan.labels.count
        let training = features.training, validation = features.validation
        let settings = settings(request)
        let grid = request.l2.map { [$0] } ?? L2Search.defaultGrid
        var countsPerLabel = [Int](repeating: 0, count: classCount)
        if let validationFolder = scan.layout.validation {
            let withViews = TrainingViews(rows: views).trainingWithViews(training)
            let selection = L2Search.select(
                grid: grid, trainingFeatures: withViews.features, trainingLabels: withViews.labels,
                trainingCount: withViews.count, validationFeatures: validation.features,
                validationLabels: validation.labels, validationCount: validation.count,
                dimension: dimension, classCount: classCount, settings: settings)
            for label in validation.labels { countsPerLabel[label] += 1 }
            return HeldOutSelection(
                selection: selection, source: validationFolder.path, truths: validation.labels,
                paths: validation.paths, countsPerLabel: countsPerLabel)
        } else if request.validationFraction != 0 {
            let plan =
                request.validationFraction.map { HeldOutPlan.holdOut(fraction: $0) }
                ?? HeldOutPlan.automatic(trainingCount: training.count)
            if case .holdOut(let fraction) = plan {
                try requireHeldOutImages(
                    fraction: fraction, labels: training.labels, classCount: classCount,
                    seed: request.seed, fineTuning: fineTuning)
            }
            let selection = L2Search.select(
                grid: grid, features: training.features, labels: training.labels, count: training.count,
                dimension: dimension, classCount: classCount, plan: plan, seed: request.seed, settings: settings,
                threads: threads, derived: views)
            for sample in Set(selection.heldOutSamples) { countsPerLabel[training.labels[sample]] += 1 }
            return HeldOutSelection(
                selection: selection, source: "\(plan.summary) of training, seed \(request.seed)",
                truths: selection.heldOutSamples.map { training.labels[$0] },
                paths: selection.heldOutSamples.map { training.paths[$0] },
                countsPerLabel: countsPerLabel)
        } else {
            return HeldOutSelection(selection: nil, source: "none", truths: [], paths: [], countsPerLabel: countsPerLabel)
        }
    }
}

extension HeldOutSelection {
    /// Refuses a held-out share that would hold out no image, saying how many it holds out and what is needed.
    static func requireHeldOutImages(
        fraction: Double, labels: [Int], classCount: Int, seed: UInt64,
        fineTuning: Bool
    ) throws(WorkbenchError) {
        let split = StratifiedSplit.split(labels: labels, classCount: classCount, fraction: fraction, seed: seed)
        guard split.validation.isEmpty else { return }
        var perLabel = [Int](repeating: 0, count: classCount)
        for label in labels { perLabel[label] += 1 }
        let minimum = StratifiedSplit.minimumClassSizeForValidation
        let share = "\(Int((fraction * 100).rounded())) %"
        let advice =
            fineTuning
            ? "fine-tuning chooses its epoch on held-out images: give a validation folder or add images"
            : "nothing to choose the L2 strength on: give a validation folder, add images, or cross-validate (no held-out share)"
        throw WorkbenchError(
            "a held-out share of \(share) holds out 0 of the \(labels.count) training images: only a label "
                + "with at least \(minimum) images gives some, and the largest here has \(perLabel.max() ?? 0); \(advice)")
    }
}

/// Step 4: the head fitted on all training images with the chosen strength.
struct FittedHead {
    var standardizer: Standardizer
    var outcome: TrainingOutcome
    /// The settings it was fitted with, the chosen strength included.
    var settings: LogisticRegressionSettings

    /// Takes the selection's fit on all images when it made one, else fits, warm-started from the first fold.
    static func fit(
        _ request: TrainingRequest, training: LabeledFeatures, heldOut: HeldOutSelection, classCount: Int
    ) -> FittedHead {
        let dimension = EfficientNetLite0.featureCount
        var settings = HeldOutSelection.settings(request)
        let selection = heldOut.selection
        if let selection { settings.l2 = selection.l2 }
        if let fitted = selection?.fittedOnAll {
            return FittedHead(standardizer: fitted.standardizer, outcome: fitted.outcome, settings: settings)
        }
        let standardizer = Standardizer(fitting: training.features, count: training.count, dimension: dimension)
        // From the first fold's model with the chosen strength: the same optimum, reached in fewer steps.
        let start = selection?.warmStart.map { $0.model.restandardized(from: $0.standardizer, to: standardizer) }
        let outcome = LogisticRegressionTrainer.train(
            features: standardizer.apply(training.features, count: training.count), labels: training.labels,
            count: training.count, dimension: dimension, classCount: classCount, settings: settings,
            initialModel: start)
        return FittedHead(standardizer: standardizer, outcome: outcome, settings: settings)
    }

    /// The head's logits for `set`, `[set.count, classCount]`.
    func logits(_ set: LabeledFeatures) -> [Float] {
        outcome.model.logits(standardizer.apply(set.features, count: set.count), count: set.count)
    }
}

/// Step 5: the temperature fitted on the held-out logits, then the confidence thresholds on the calibrated
/// probabilities.
struct HeadCalibration {
    var temperature: Double
    /// The held-out predictions' probabilities at `temperature`.
    var heldOutProbabilities: [Float]
    var thresholds: TrainingReport.Thresholds?
    /// The lowest confidence whose held-out answers reach the target precision, when one was asked for.
    var confidenceThreshold: Double?

    /// Calibrates on `heldOut`; with nothing held out the temperature is 1 and there are no thresholds.
    static func fit(_ heldOut: HeldOutSelection, targetPrecision: Double?, classCount: Int) -> HeadCalibration {
        let logits = heldOut.logits
        let count = heldOut.truths.count
        let temperature = TemperatureScaling.fit(logits: logits, labels: heldOut.truths, classCount: classCount)
        let probabilities = Softmax.probabilities(
            logits: logits, count: count, classCount: classCount,
            temperature: temperature)
        var thresholds: TrainingReport.Thresholds?
        var confidenceThreshold: Double?
        if count > 0 {
            let confidences = (0..<count).map { row in
                Double(probabilities[(row * classCount)..<((row + 1) * classCount)].max()!)
            }
            let correct = (0..<count).map { row in
                probabilities[(row * classCount)..<((row + 1) * classCount)].indexOfMaximum == heldOut.truths[row]
            }
            if let targetPrecision {
                confidenceThreshold = ConfidenceThresholds.lowestThreshold(
                    reaching: targetPrecision,
                    confidences: confidences, correct: correct)
            }
            thresholds = .init(
                table: ConfidenceThresholds.table(confidences: confidences, correct: correct),
                targetPrecision: targetPrecision, chosen: confidenceThreshold)
        }
        return HeadCalibration(
            temperature: temperature, heldOutProbabilities: probabilities, thresholds: thresholds,
            confidenceThreshold: confidenceThreshold)
    }
}

/// Step 6: every split through the finished head, with calibrated probabilities.
struct SplitEvaluations {
    var training: TrainingReport.SplitEvaluation
    /// Nil when nothing was held out.
    var validation: TrainingReport.SplitEvaluation?
    /// Nil without a testing folder.
    var testing: TrainingReport.SplitEvaluation?
    var calibration: TrainingReport.Calibration?
    /// Each evaluated split's predictions by name ("training", "validation", "testing"), for the pages.
    var predictions: [String: SplitPredictions]

    /// Evaluates the training and testing images through `head`, and the held-out predictions as they were made
    /// (by the models that did not see them).
    static func evaluate(
        head: FittedHead, calibration: HeadCalibration, features: TrainingFeatures, heldOut: HeldOutSelection,
        scan: TrainingScan
    ) -> SplitEvaluations {
        let labels = scan.labels
        let classCount = labels.count
        let temperature = calibration.temperature
        var predictions: [String: SplitPredictions] = [:]
        func evaluate(_ logits: [Float], truths: [Int], paths: [String], split: String) -> TrainingReport.SplitEvaluation {
            let probabilities = Softmax.probabilities(
                logits: logits, count: paths.count, classCount: classCount,
                temperature: temperature)
            predictions[split] = SplitPredictions(paths: paths, truths: truths, probabilities: probabilities)
            return Evaluation.evaluate(labels: labels, paths: paths, truths: truths, probabilities: probabilities)
        }
        let trainingSet = features.training, testingSet = features.testing
        let heldOutLogits = heldOut.logits
        let heldOutCount = heldOut.truths.count
        let training = evaluate(
            head.logits(trainingSet), truths: trainingSet.labels, paths: trainingSet.paths,
            split: "training")
        let validation =
            heldOutCount == 0
            ? nil
            : evaluate(
                heldOutLogits, truths: heldOut.truths, paths: heldOut.paths,
                split: "validation")
        let testingLogits = head.logits(testingSet)
        let testing =
            scan.layout.testing == nil
            ? nil
            : evaluate(
                testingLogits, truths: testingSet.labels,
                paths: testingSet.paths, split: "testing")
        let calibrationReport: TrainingReport.Calibration? =
            heldOutCount == 0
            ? nil
            : .init(
                temperature: temperature, bins: CalibrationError.binCount,
                heldOutBefore: CalibrationError.expected(
                    probabilities: Softmax.probabilities(logits: heldOutLogits, count: heldOutCount, classCount: classCount),
                    labels: heldOut.truths, classCount: classCount),
                heldOutAfter: CalibrationError.expected(
                    probabilities: calibration.heldOutProbabilities,
                    labels: heldOut.truths, classCount: classCount),
                testingBefore: testing == nil || testingSet.paths.isEmpty
                    ? nil
                    : CalibrationError.expected(
                        probabilities: Softmax.probabilities(logits: testingLogits, count: testingSet.count, classCount: classCount),
                        labels: testingSet.labels, classCount: classCount),
                testingAfter: testingSet.paths.isEmpty ? nil : testing?.expectedCalibrationError)
        return SplitEvaluations(
            training: training, validation: validation, testing: testing,
            calibration: calibrationReport, predictions: predictions)
    }
}
