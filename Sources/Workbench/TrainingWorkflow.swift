import Datasets
import Foundation
import ModelFiles
import Models
import TensorCore
import Training

/// What to train on and how.
public struct TrainingRequest: Sendable {
    /// A dataset folder (Create ML's `Training Data`/`Testing Data`, or `train/`, `val/`, `test/`), or a folder of
    /// label subfolders used for training.
    public var datasetPath: String
    /// A testing folder that overrides the dataset's own.
    public var testingPath: String?
    /// A validation folder: the strength is chosen and the temperature fitted on it, and it is never trained on.
    public var validationPath: String?
    /// Without a validation folder: nil chooses the strength by cross-validation over the training images
    /// (`HeldOutPlan.automatic`); a fraction holds out that stratified share instead; 0 holds out nothing (no
    /// choice of strength, no calibration). Either way the final model is fitted on all training images.
    public var validationFraction: Double?
    /// Seeds the folds and the held-out split.
    public var seed: UInt64 = 42
    /// The L2 strength; nil chooses it from `L2Search.defaultGrid` on held-out predictions.
    public var l2: Double?
    /// When set, the lowest confidence threshold whose held-out answers reach this precision is stored in the model.
    public var targetPrecision: Double?
    public var maxIterations: Int = 1000
    public var classWeighting: ClassWeighting = .uniform
    /// Makes the first unreadable image (or unreadable entry of the dataset's folders) stop the run instead of
    /// being skipped with a warning.
    public var strict: Bool = false
    /// When the model was made; nil is `$SOURCE_DATE_EPOCH` if set, else now.
    public var creationDate: Date?

    public init(datasetPath: String) { self.datasetPath = datasetPath }
}

/// Progress of a training run, for the CLI to render.
public enum TrainingEvent: Sendable {
    /// The dataset was scanned: images per label and split, and the non-image files passed over.
    case scanned(counts: [TrainingReport.LabelCounts], skipped: [SkippedFile])
    /// Something worth a line: leakage, imbalance, an unreadable image.
    case warning(String)
    /// Features extracted so far.
    case features(done: Int, total: Int)
    /// The head is being fitted.
    case fitting
}

/// A finished run: the report (with timings) and the model, not yet written.
public struct TrainingResult: Sendable {
    public var report: TrainingReport
    public var modelFile: ModelFile
    /// Each evaluated split's predictions ("training", "validation", "testing"), for pages that draw more than
    /// the report's numbers (reliability, thresholds, example images).
    public var predictions: [String: SplitPredictions] = [:]
    /// The dataset warnings as values (the report keeps their text), e.g. the duplicate files to show side by side.
    public var datasetWarnings: [DatasetWarning] = []
}

/// One split's predictions: the files, their true labels and every label's probability.
public struct SplitPredictions: Sendable {
    public var paths: [String]
    /// Indexes into the model's labels.
    public var truths: [Int]
    /// `[paths.count, labels.count]`, row-major.
    public var probabilities: [Float]

    /// Predictions of one split.
    public init(paths: [String], truths: [Int], probabilities: [Float]) {
        self.paths = paths
        self.truths = truths
        self.probabilities = probabilities
    }
}

/// `workbench train`: scan, extract (cached) features, split, fit the head, evaluate every split, build the model.
public enum TrainingWorkflow {
    /// The L2 strength used when there is neither `--l2` nor anything held out to choose one with. The objective
    /// sums the losses, so this equals scikit-learn's default `C = 1`.
    public static let defaultL2 = 1.0

    public static func run(
        _ request: TrainingRequest, extractor: FeatureExtractor, events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> TrainingResult {
        let clock = ContinuousClock()
        let started = clock.now
        // Checked first, so a bad SOURCE_DATE_EPOCH fails before the long part of the run.
        let creationDate: Date
        if let requested = request.creationDate { creationDate = requested } else { creationDate = try reproducibleNow() }
        let layout = try resolveLayout(request)
        let labels = layout.labels
        let labelIndex = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })

        // Every file once, with its split and label; features come back in this order.
        enum Split: Int { case training, validation, testing }
        var items: [(path: String, label: Int, split: Split)] = []
        func add(_ folder: ImageFolder?, as split: Split) {
            for labelFolder in folder?.classes ?? [] {
                items += labelFolder.files.map { ($0, labelIndex[labelFolder.label]!, split) }
            }
        }
        add(layout.training, as: .training)
        add(layout.validation, as: .validation)
        add(layout.testing, as: .testing)
        events(.scanned(counts: counts(labels: labels, items: items.map { ($0.label, $0.split.rawValue) }),
                        skipped: layout.skipped))
        // Entries the scan found but cannot read are unreadable images like those that fail to decode.
        var unreadable = layout.unreadable.map { TrainingReport.Problem(path: $0.path, reason: $0.reason) }
        if request.strict, let first = unreadable.first { throw WorkbenchError(path: first.path, reason: first.reason) }
        for problem in unreadable { events(.warning("\(problem.path): \(problem.reason) (skipped)")) }
        let datasetWarnings = DatasetWarnings.check(layout)
        for warning in datasetWarnings { events(.warning("\(warning)")) }
        let scanned = clock.now

        // Features, in file order; unreadable files are warnings (or, with --strict, the first one stops the run).
        let dimension = EfficientNetLite0.featureCount
        var features: [Float] = []
        features.reserveCapacity(items.count * dimension)
        var usable: [Int] = []
        var firstFailure: WorkbenchError?
        extractor.extract(paths: items.map(\.path)) { index, path, result in
            events(.features(done: index + 1, total: items.count))
            switch result {
            case .success(let vector):
                features += vector
                usable.append(index)
                return true
            case .failure(let error):
                unreadable.append(.init(path: path, reason: error.reason))
                if request.strict {
                    firstFailure = error
                    return false
                }
                events(.warning("\(error) (skipped)"))
                return true
            }
        }
        if let firstFailure { throw firstFailure }
        var readable: [String: Int] = [:]
        for index in usable where items[index].split == .training { readable[labels[items[index].label], default: 0] += 1 }
        do {
            try DatasetLayout.requireReadableImages(in: layout.training, readableCounts: readable)
        } catch {
            throw WorkbenchError("\(error)")
        }
        let extracted = clock.now

        // Rows of `features` by split. Training rows all go into the final model; held-out predictions come from
        // cross-validation or a held-out share within them, or from a separate validation folder.
        var rows: [Split: [Int]] = [.training: [], .validation: [], .testing: []]
        for (row, index) in usable.enumerated() { rows[items[index].split]!.append(row) }
        let trainingRows = rows[.training]!, validationRows = rows[.validation]!
        func gather(_ selected: [Int]) -> (features: [Float], labels: [Int], paths: [String]) {
            var matrix = [Float](); matrix.reserveCapacity(selected.count * dimension)
            for row in selected { matrix += features[(row * dimension)..<((row + 1) * dimension)] }
            return (matrix, selected.map { items[usable[$0]].label }, selected.map { items[usable[$0]].path })
        }
        let trainingSet = gather(trainingRows), validationSet = gather(validationRows), testingSet = gather(rows[.testing]!)
        let classCount = labels.count

        // The head: choose the strength on held-out predictions, then fit on all training images.
        events(.fitting)
        var settings = LogisticRegressionSettings(l2: request.l2 ?? defaultL2, maxIterations: request.maxIterations,
                                                  classWeighting: request.classWeighting)
        let grid = request.l2.map { [$0] } ?? L2Search.defaultGrid
        let selection: L2Selection?
        let validationSource: String
        // Held-out predictions: truths and paths of the rows of `selection.heldOutLogits`.
        var heldOutTruths: [Int] = [], heldOutPaths: [String] = []
        var heldOutCountsPerLabel = [Int](repeating: 0, count: classCount)
        if layout.validation != nil {
            selection = L2Search.select(
                grid: grid, trainingFeatures: trainingSet.features, trainingLabels: trainingSet.labels,
                trainingCount: trainingRows.count, validationFeatures: validationSet.features,
                validationLabels: validationSet.labels, validationCount: validationRows.count,
                dimension: dimension, classCount: classCount, settings: settings)
            validationSource = layout.validation!.path
            heldOutTruths = validationSet.labels
            heldOutPaths = validationSet.paths
            for label in validationSet.labels { heldOutCountsPerLabel[label] += 1 }
        } else if request.validationFraction != 0 {
            let plan = request.validationFraction.map { HeldOutPlan.holdOut(fraction: $0) }
                ?? HeldOutPlan.automatic(trainingCount: trainingRows.count)
            let chosen = L2Search.select(
                grid: grid, features: trainingSet.features, labels: trainingSet.labels, count: trainingRows.count,
                dimension: dimension, classCount: classCount, plan: plan, seed: request.seed, settings: settings,
                threads: extractor.settings.threads)
            selection = chosen
            validationSource = "\(plan.summary) of training, seed \(request.seed)"
            heldOutTruths = chosen.heldOutSamples.map { trainingSet.labels[$0] }
            heldOutPaths = chosen.heldOutSamples.map { trainingSet.paths[$0] }
            for sample in Set(chosen.heldOutSamples) { heldOutCountsPerLabel[trainingSet.labels[sample]] += 1 }
        } else {
            selection = nil
            validationSource = "none"
        }
        let selected = clock.now
        if let selection { settings.l2 = selection.l2 }
        let standardizer: Standardizer
        let outcome: TrainingOutcome
        if let fitted = selection?.fittedOnAll {
            (standardizer, outcome) = fitted
        } else {
            standardizer = Standardizer(fitting: trainingSet.features, count: trainingRows.count, dimension: dimension)
            // From the first fold's model with the chosen strength: the same optimum, reached in fewer steps.
            let start = selection?.warmStart.map { $0.model.restandardized(from: $0.standardizer, to: standardizer) }
            outcome = LogisticRegressionTrainer.train(
                features: standardizer.apply(trainingSet.features, count: trainingRows.count), labels: trainingSet.labels,
                count: trainingRows.count, dimension: dimension, classCount: classCount, settings: settings,
                initialModel: start)
        }

        // Calibration on the held-out logits, then the confidence thresholds on the calibrated probabilities.
        let heldOutLogits = selection?.heldOutLogits ?? []
        let heldOutCount = heldOutTruths.count
        let temperature = TemperatureScaling.fit(logits: heldOutLogits, labels: heldOutTruths, classCount: classCount)
        let heldOutProbabilities = Softmax.probabilities(logits: heldOutLogits, count: heldOutCount,
                                                         classCount: classCount, temperature: temperature)
        var thresholds: TrainingReport.Thresholds?
        var confidenceThreshold: Double?
        if heldOutCount > 0 {
            let confidences = (0..<heldOutCount).map { row in
                Double(heldOutProbabilities[(row * classCount)..<((row + 1) * classCount)].max()!)
            }
            let correct = (0..<heldOutCount).map { row in
                heldOutProbabilities[(row * classCount)..<((row + 1) * classCount)].indexOfMaximum == heldOutTruths[row]
            }
            if let target = request.targetPrecision {
                confidenceThreshold = ConfidenceThresholds.lowestThreshold(reaching: target, confidences: confidences, correct: correct)
            }
            thresholds = .init(table: ConfidenceThresholds.table(confidences: confidences, correct: correct),
                               targetPrecision: request.targetPrecision, chosen: confidenceThreshold)
        }
        let fitted = clock.now

        // Every split through the finished head, with calibrated probabilities; pages draw from the predictions.
        var predictions: [String: SplitPredictions] = [:]
        func logits(_ set: (features: [Float], labels: [Int], paths: [String])) -> [Float] {
            outcome.model.logits(standardizer.apply(set.features, count: set.paths.count), count: set.paths.count)
        }
        func evaluate(_ logits: [Float], truths: [Int], paths: [String], split: String) -> TrainingReport.SplitEvaluation {
            let probabilities = Softmax.probabilities(logits: logits, count: paths.count, classCount: classCount,
                                                      temperature: temperature)
            predictions[split] = SplitPredictions(paths: paths, truths: truths, probabilities: probabilities)
            return Evaluation.evaluate(labels: labels, paths: paths, truths: truths, probabilities: probabilities)
        }
        let trainingEvaluation = evaluate(logits(trainingSet), truths: trainingSet.labels, paths: trainingSet.paths, split: "training")
        let validationEvaluation = heldOutCount == 0 ? nil : evaluate(heldOutLogits, truths: heldOutTruths, paths: heldOutPaths, split: "validation")
        let testingLogits = logits(testingSet)
        let testingEvaluation = layout.testing == nil ? nil : evaluate(testingLogits, truths: testingSet.labels, paths: testingSet.paths, split: "testing")
        let calibration: TrainingReport.Calibration? = heldOutCount == 0 ? nil : .init(
            temperature: temperature, bins: CalibrationError.binCount,
            heldOutBefore: CalibrationError.expected(
                probabilities: Softmax.probabilities(logits: heldOutLogits, count: heldOutCount, classCount: classCount),
                labels: heldOutTruths, classCount: classCount),
            heldOutAfter: CalibrationError.expected(probabilities: heldOutProbabilities, labels: heldOutTruths, classCount: classCount),
            testingBefore: testingEvaluation == nil || testingSet.paths.isEmpty ? nil : CalibrationError.expected(
                probabilities: Softmax.probabilities(logits: testingLogits, count: testingSet.paths.count, classCount: classCount),
                labels: testingSet.labels, classCount: classCount),
            testingAfter: testingSet.paths.isEmpty ? nil : testingEvaluation?.expectedCalibrationError)

        let heldOutImages = heldOutCountsPerLabel.reduce(0, +)
        func summary(_ evaluation: TrainingReport.SplitEvaluation?, images: Int) -> TrainingReport.SplitSummary {
            guard let evaluation else { return .init(accuracy: 0, count: 0, interval: nil, predictions: nil) }
            return .init(accuracy: evaluation.accuracy, count: images,
                         interval: WilsonInterval.interval(proportion: evaluation.accuracy, count: images),
                         predictions: evaluation.count > images ? evaluation.count : nil)
        }
        var splitCounts = counts(labels: labels, items: usable.map { (items[$0].label, items[$0].split.rawValue) })
        if layout.validation == nil {
            for label in labels.indices { splitCounts[label].validation = heldOutCountsPerLabel[label] }
        }
        let diagnostics = TrainingDiagnostics.warnings(
            labels: labels, trainingAccuracy: trainingEvaluation.accuracy,
            heldOut: validationEvaluation.map {
                .init(accuracy: $0.accuracy, count: heldOutImages, countsPerLabel: heldOutCountsPerLabel,
                      confusion: $0.confusionMatrix)
            },
            testing: testingEvaluation.map { ($0.accuracy, $0.count) }).map { "\($0)" }
        var selectionReport: TrainingReport.Selection?
        if let selection {
            var folds: Int?, repeats: Int?
            if case .crossValidation(let foldCount, let repeatCount) = selection.plan { (folds, repeats) = (foldCount, repeatCount) }
            selectionReport = .init(method: selection.plan?.summary ?? "validation folder", folds: folds, repeats: repeats,
                                    heldOutImages: heldOutImages, heldOutPredictions: heldOutCount,
                                    grid: selection.candidates, chosen: selection.l2,
                                    refitOnAllTrainingImages: selection.fittedOnAll == nil)
        }
        var report = TrainingReport(
            labels: labels,
            training: summary(trainingEvaluation, images: trainingEvaluation.count),
            validation: summary(validationEvaluation, images: heldOutImages),
            testing: summary(testingEvaluation, images: testingEvaluation?.count ?? 0),
            counts: splitCounts,
            trainingEvaluation: trainingEvaluation, validationEvaluation: validationEvaluation,
            testingEvaluation: testingEvaluation,
            settings: .init(seed: request.seed,
                            validationFraction: heldOutFraction(selection?.plan),
                            validationSource: validationSource, l2: settings.l2,
                            l2Chosen: request.l2 == nil && selection != nil, maxIterations: request.maxIterations,
                            classWeighting: request.classWeighting.rawValue, iterations: outcome.iterations,
                            converged: outcome.converged, preprocessing: Preprocessing.identifier,
                            backbone: "\(Backbone.name) sha256:\(extractor.backboneIdentifier)"),
            selection: selectionReport, calibration: calibration, thresholds: thresholds,
            unreadable: unreadable,
            warnings: datasetWarnings.map { "\($0)" } + diagnostics,
            diagnostics: diagnostics,
            timings: nil)

        let modelFile = ModelFile(
            labels: labels, preprocessing: .efficientNetLite0, backboneName: Backbone.name,
            backboneTensors: extractor.backbone.weights.tensors,
            head: HeadTensors(featureMean: standardizer.mean, featureScale: standardizer.scale,
                              weights: outcome.model.weights, bias: outcome.model.bias),
            creationDate: iso8601(creationDate),
            workbenchVersion: WorkbenchInfo.version,
            trainingReportJSON: try encode(report), temperature: temperature, confidenceThreshold: confidenceThreshold)
        let finished = clock.now
        report.timings = .init(scanning: seconds(scanned - started), features: seconds(extracted - scanned),
                               selection: seconds(selected - extracted), training: seconds(fitted - extracted),
                               total: seconds(finished - started))
        return TrainingResult(report: report, modelFile: modelFile, predictions: predictions, datasetWarnings: datasetWarnings)
    }

    /// The share of training images held out by `plan` (0 for cross-validation, where every image is held out once
    /// per repeat, and for a validation folder).
    private static func heldOutFraction(_ plan: HeldOutPlan?) -> Double {
        if case .holdOut(let fraction) = plan { return fraction }
        return 0
    }

    /// The dataset folders the request names, checked.
    static func resolveLayout(_ request: TrainingRequest) throws(WorkbenchError) -> DatasetLayout {
        do {
            var layout = try DatasetLayout.resolve(path: request.datasetPath)
            if let testingPath = request.testingPath { layout.testing = try ImageFolder.scan(path: testingPath) }
            if let validationPath = request.validationPath { layout.validation = try ImageFolder.scan(path: validationPath) }
            try layout.validate()
            return layout
        } catch {
            throw WorkbenchError("\(error)")
        }
    }

    private static func counts(labels: [String], items: [(label: Int, split: Int)]) -> [TrainingReport.LabelCounts] {
        var table = labels.map { TrainingReport.LabelCounts(label: $0, training: 0, validation: 0, testing: 0) }
        for item in items {
            switch item.split {
            case 0: table[item.label].training += 1
            case 1: table[item.label].validation += 1
            default: table[item.label].testing += 1
            }
        }
        return table
    }

    /// JSON with sorted keys, so equal reports give equal bytes.
    static func encode<Value: Encodable>(_ value: Value) throws(WorkbenchError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return String(decoding: try encoder.encode(value), as: UTF8.self)
        } catch {
            throw WorkbenchError("cannot encode the training report: \(error)")
        }
    }

    /// The latest `$SOURCE_DATE_EPOCH` accepted: the last second of the year 9999, the most ISO 8601 can write.
    static let latestSourceDateEpoch = 253_402_300_799

    /// `$SOURCE_DATE_EPOCH` (the reproducible-builds convention: whole seconds since 1970) when set, so a rebuild
    /// can be byte-identical; anything else in it is an error rather than a nonsense date in the model.
    private static func reproducibleNow() throws(WorkbenchError) -> Date {
        guard let text = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], !text.isEmpty else { return Date() }
        guard let epoch = Int(text), (0...latestSourceDateEpoch).contains(epoch) else {
            throw WorkbenchError("SOURCE_DATE_EPOCH must be whole seconds since 1970, from 0 to \(latestSourceDateEpoch); got '\(text)'")
        }
        return Date(timeIntervalSince1970: Double(epoch))
    }

    private static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}

/// Facts about this build of Workbench.
public enum WorkbenchInfo {
    /// The version model files record.
    public static let version = "0.1.0"
}
