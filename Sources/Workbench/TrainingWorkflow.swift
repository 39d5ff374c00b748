import Datasets
import Foundation
import ModelFiles
import Models
import Training

/// What to train on and how.
public struct TrainingRequest: Sendable {
    /// A dataset folder (Create ML's `Training Data`/`Testing Data`, or `train/`, `val/`, `test/`), or a folder of
    /// label subfolders used for training.
    public var datasetPath: String
    /// A testing folder that overrides the dataset's own.
    public var testingPath: String?
    /// A validation folder; without one, a stratified share of the training images is held out.
    public var validationPath: String?
    /// The share held out for validation when there is no validation folder (0 turns validation off).
    public var validationFraction: Double = 0.1
    /// Seeds the validation split.
    public var seed: UInt64 = 42
    /// The L2 strength; nil chooses it from `L2Search.defaultGrid` by validation accuracy.
    public var l2: Double?
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
}

/// `workbench train`: scan, extract (cached) features, split, fit the head, evaluate every split, build the model.
public enum TrainingWorkflow {
    /// The L2 strength used when there is neither `--l2` nor a validation set to choose one with. The objective
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
        for warning in DatasetWarnings.check(layout) { events(.warning("\(warning)")) }
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

        // Rows of `features` by split.
        var rows: [Split: [Int]] = [.training: [], .validation: [], .testing: []]
        for (row, index) in usable.enumerated() { rows[items[index].split]!.append(row) }
        var trainingRows = rows[.training]!
        var validationRows = rows[.validation]!
        let validationSource: String
        if layout.validation != nil {
            validationSource = layout.validation!.path
        } else if request.validationFraction > 0 {
            let split = StratifiedSplit.split(labels: trainingRows.map { items[usable[$0]].label }, classCount: labels.count,
                                              fraction: request.validationFraction, seed: request.seed)
            validationRows = split.validation.map { trainingRows[$0] }
            trainingRows = split.training.map { trainingRows[$0] }
            validationSource = "stratified \(Int((request.validationFraction * 100).rounded())) % of training, seed \(request.seed)"
        } else {
            validationSource = "none"
        }
        func gather(_ selected: [Int]) -> (features: [Float], labels: [Int], paths: [String]) {
            var matrix = [Float](); matrix.reserveCapacity(selected.count * dimension)
            for row in selected { matrix += features[(row * dimension)..<((row + 1) * dimension)] }
            return (matrix, selected.map { items[usable[$0]].label }, selected.map { items[usable[$0]].path })
        }
        let trainingSet = gather(trainingRows), validationSet = gather(validationRows), testingSet = gather(rows[.testing]!)

        // The head.
        events(.fitting)
        let standardizer = Standardizer(fitting: trainingSet.features, count: trainingRows.count, dimension: dimension)
        let standardizedTraining = standardizer.apply(trainingSet.features, count: trainingRows.count)
        let standardizedValidation = standardizer.apply(validationSet.features, count: validationRows.count)
        var settings = LogisticRegressionSettings(l2: request.l2 ?? defaultL2, maxIterations: request.maxIterations,
                                                  classWeighting: request.classWeighting)
        let outcome: TrainingOutcome
        var grid: [Double] = [], gridAccuracies: [Double] = []
        if request.l2 == nil && !validationRows.isEmpty {
            let selection = L2Search.select(
                trainingFeatures: standardizedTraining, trainingLabels: trainingSet.labels, trainingCount: trainingRows.count,
                validationFeatures: standardizedValidation, validationLabels: validationSet.labels, validationCount: validationRows.count,
                dimension: dimension, classCount: labels.count, settings: settings)
            settings.l2 = selection.l2
            outcome = selection.outcome
            grid = selection.grid
            gridAccuracies = selection.validationAccuracies
        } else {
            outcome = LogisticRegressionTrainer.train(features: standardizedTraining, labels: trainingSet.labels,
                                                      count: trainingRows.count, dimension: dimension,
                                                      classCount: labels.count, settings: settings)
        }
        let fitted = clock.now

        // Every split through the finished head.
        func evaluate(_ set: (features: [Float], labels: [Int], paths: [String])) -> TrainingReport.SplitEvaluation {
            let count = set.paths.count
            let probabilities = outcome.model.probabilities(standardizer.apply(set.features, count: count), count: count)
            return Evaluation.evaluate(labels: labels, paths: set.paths, truths: set.labels, probabilities: probabilities)
        }
        let trainingEvaluation = evaluate(trainingSet)
        let validationEvaluation = validationRows.isEmpty ? nil : evaluate(validationSet)
        let testingEvaluation = layout.testing == nil ? nil : evaluate(testingSet)

        let heldOut = Set(validationRows)
        let splitCounts = counts(labels: labels, items: usable.enumerated().map { row, index in
            (items[index].label, heldOut.contains(row) ? Split.validation.rawValue : items[index].split.rawValue)
        })
        var report = TrainingReport(
            labels: labels,
            training: .init(accuracy: trainingEvaluation.accuracy, count: trainingEvaluation.count),
            validation: .init(accuracy: validationEvaluation?.accuracy ?? 0, count: validationEvaluation?.count ?? 0),
            testing: .init(accuracy: testingEvaluation?.accuracy ?? 0, count: testingEvaluation?.count ?? 0),
            counts: splitCounts,
            trainingEvaluation: trainingEvaluation, validationEvaluation: validationEvaluation,
            testingEvaluation: testingEvaluation,
            settings: .init(seed: request.seed, validationFraction: layout.validation == nil ? request.validationFraction : 0,
                            validationSource: validationSource, l2: settings.l2, l2Chosen: request.l2 == nil && !grid.isEmpty,
                            l2Grid: grid, l2ValidationAccuracies: gridAccuracies, maxIterations: request.maxIterations,
                            classWeighting: request.classWeighting.rawValue, iterations: outcome.iterations,
                            converged: outcome.converged, preprocessing: Preprocessing.identifier,
                            backbone: "\(Backbone.name) sha256:\(extractor.backboneIdentifier)"),
            unreadable: unreadable,
            warnings: DatasetWarnings.check(layout).map { "\($0)" },
            timings: nil)

        let modelFile = ModelFile(
            labels: labels, preprocessing: .efficientNetLite0, backboneName: Backbone.name,
            backboneTensors: extractor.backbone.weights.tensors,
            head: HeadTensors(featureMean: standardizer.mean, featureScale: standardizer.scale,
                              weights: outcome.model.weights, bias: outcome.model.bias),
            creationDate: iso8601(creationDate),
            workbenchVersion: WorkbenchInfo.version,
            trainingReportJSON: try encode(report))
        let finished = clock.now
        report.timings = .init(scanning: seconds(scanned - started), features: seconds(extracted - scanned),
                               training: seconds(fitted - extracted), total: seconds(finished - started))
        return TrainingResult(report: report, modelFile: modelFile)
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
