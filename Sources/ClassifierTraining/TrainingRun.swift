import Augmentation
import Datasets
import FileFormats
import Foundation
import ImageCodecs
import Inference
import LogisticHead
import ModelFiles
import Models

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
    /// Augmented views per training image the head is also fitted on (0 to `AugmentedViewFeatures.maximumViews`);
    /// held-out, validation and testing images are never augmented, and a view stays in its image's fold.
    public var augmentedViews: Int = 0
    /// What the views are made with, for `--augment N` and for each epoch of fine-tuning (seeded by `seed`);
    /// `.none` makes fine-tuning read the images as they are, once.
    public var augmentation: AugmentationPolicy = .fineTuningDefault
    /// When set, the top of the backbone is fine-tuned from the frozen head (`train --fine-tune`); the epoch is
    /// chosen and fine-tuning kept or not (`FineTuning.FineTuningDecision`) on the validation folder, else on three
    /// stratified folds of the training images below 1,000 of them, else on a held-out share (`validationFraction`,
    /// 20 % when nil); then the kept model is trained again on all training images for the chosen epochs.
    public var fineTuning: FineTuningSettings?
    /// Whether the model's answers are averaged over its test-time views by default (`train --tta`); stored in the
    /// model file with whether those views may mirror (not when `augmentation` has no flip: `--no-flip`).
    public var testTimeAugmentation = false
    /// With `fineTuning` set: fine-tune only when `AutomaticFineTuning` says the frozen head leaves room and the
    /// run fits the time budget (`train --fine-tune-auto`).
    public var fineTunesAutomatically = false
    /// A file listing pictures to leave out of every split (`Datasets.ExcludedPaths`: doctor's JSON report, or one
    /// path a line); nil leaves the dataset as scanned.
    public var exclusionList: String?

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
    /// Augmented views of training images run through the network so far.
    case views(done: Int, total: Int)
    /// The head is being fitted.
    case fitting
    /// Fine-tuning's progress.
    case fineTuning(FineTuningProgress)
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

extension ErrorHint {
    /// Refits were asked for (`FineTuningSettings.refits` other than its default) where fine-tuning makes none: the
    /// setting is to be left at its default.
    public static let leaveRefitsAtDefault = ErrorHint("ClassifierTraining.leaveRefitsAtDefault")
}

/// `workbench train`: scan, extract (cached) features, split, fit the head, evaluate every split, build the model.
///
/// `run` is the steps in order, each a small function or type in `TrainingSteps.swift`:
/// `TrainingScan` → `TrainingFeatures` → `HeldOutSelection` → `FittedHead` → `HeadCalibration` →
/// `SplitEvaluations` → report and model file. A step that changes the backbone (fine-tuning) goes between
/// `HeadCalibration` and `SplitEvaluations`: it hands on new features and a new head, and `makeModelFile` takes the
/// backbone's tensors as a parameter.
public enum TrainingRun {
    /// The L2 strength used when there is neither `--l2` nor anything held out to choose one with. The objective
    /// sums the losses, so this equals scikit-learn's default `C = 1`.
    public static let defaultL2 = 1.0

    /// Trains a model as `request` asks, reporting progress to `events`; the model is returned, not written.
    public static func run(
        _ request: TrainingRequest, extractor: FeatureExtractor, events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> TrainingResult {
        let clock = ContinuousClock()
        let started = clock.now
        // Checked first, so a bad SOURCE_DATE_EPOCH fails before the long part of the run.
        let creationDate: Date
        if let requested = request.creationDate { creationDate = requested } else { creationDate = try reproducibleNow() }

        if request.fineTuning != nil && request.validationPath == nil && request.validationFraction == 0 {
            throw WorkbenchError("fine-tuning needs held-out images to choose its epoch: give a validation folder or a validation fraction above 0")
        }
        if let problem = request.fineTuning?.problem { throw WorkbenchError("fine-tuning: \(problem)") }

        let scan = try TrainingScan.scan(request, events: events)
        if let settings = request.fineTuning, let folder = scan.layout.validation, settings.refits != FineTuningSettings().refits {
            // The dataset's own validation folder chooses the epoch and that run is the model: no refit to count.
            throw WorkbenchError(path: folder.path, reason: "with a validation folder fine-tuning does not refit", hint: .leaveRefitsAtDefault)
        }
        let scanned = clock.now
        var features = try TrainingFeatures.extract(scan, extractor: extractor, events: events)
        let extracted = clock.now
        let views = try TrainingViews.make(request, training: features.training, extractor: extractor, events: events)
        let augmented = clock.now

        events(.fitting)
        let classCount = scan.labels.count
        // The frozen head is chosen as without fine-tuning (repeated folds, refit on all): fine-tuning makes its own splits.
        let selectionRequest = request
        var heldOut = try HeldOutSelection.choose(
            selectionRequest, scan: scan, features: features, views: views.rows,
            threads: extractor.settings.threads, fineTuning: request.fineTuning != nil)
        let selected = clock.now
        var head = FittedHead.fit(
            request, training: views.trainingWithViews(features.training), heldOut: heldOut,
            classCount: classCount)
        var calibration = HeadCalibration.fit(heldOut, targetPrecision: request.targetPrecision, classCount: classCount)
        let fitted = clock.now

        var backboneTensors = extractor.backbone.weights.tensors
        var fineTuned: FineTunedModel?
        var choice: TrainingReport.FineTuningChoice?
        // What --fine-tune-auto decides with `settings` on this data: the frozen head's held-out accuracy, and the
        // splits and refits the run would make (`FineTuningSplits.Method`) for the time estimate.
        let frozenHeldOutAccuracy = heldOut.selection.map { $0.candidates[$0.chosenIndex].accuracy }
        func automaticChoice(_ settings: FineTuningSettings) -> TrainingReport.FineTuningChoice {
            let method = FineTuningSplits.Method(
                trainingCount: features.training.count, hasValidationFolder: scan.layout.validation != nil,
                fraction: request.validationFraction)
            return AutomaticFineTuning.choose(
                frozenHeldOutAccuracy: frozenHeldOutAccuracy, images: features.training.count, epochs: settings.epochs,
                splits: method.splitCount, refits: method.refits ? settings.refits : 0, threads: settings.threads)
        }
        if let settings = request.fineTuning, request.fineTunesAutomatically {
            let made = automaticChoice(settings)
            events(.fineTuning(.automaticChoice(fineTunes: made.fineTunes, reason: made.reason, hint: made.hint)))
            choice = made
        }
        if let settings = request.fineTuning, choice?.fineTunes ?? true {
            let tuned = try FineTunedModel.train(
                settings, augmentation: request.augmentation, request: request, scan: scan, features: features, heldOut: heldOut,
                head: head, extractor: extractor, events: events)
            if let improved = tuned.improved {
                (features, head, heldOut, backboneTensors) = (improved.features, improved.head, improved.heldOut, improved.backboneTensors)
                calibration = HeadCalibration.fit(heldOut, targetPrecision: request.targetPrecision, classCount: classCount)
            }
            fineTuned = tuned
        }
        let tunedAt = clock.now

        let evaluations = SplitEvaluations.evaluate(
            head: head, calibration: calibration, features: features,
            heldOut: heldOut, scan: scan)
        var report = makeReport(
            selectionRequest, scan: scan, features: features, heldOut: heldOut, head: head,
            calibration: calibration, evaluations: evaluations,
            backbone: "\(Backbone.name) sha256:\(extractor.backboneIdentifier)",
            preprocessing: extractor.preprocessing)
        // The model file's copy of the report leaves out the seconds, so equal runs give equal files.
        // Only the written model's own predictions: after a refit the held-out logits are the folds' models'.
        if let improved = fineTuned?.improved, !improved.refitted {
            fineTuned?.report.heldOutPredictions = improved.heldOutPredictions(
                temperature: calibration.temperature,
                classCount: classCount)
        }
        report.fineTuningChoice = choice
        if request.fineTuning == nil {
            // What --fine-tune-auto would do with its defaults here, as a hint.
            var defaults = FineTuningSettings()
            defaults.threads = extractor.settings.threads
            report.fineTuningHint = AutomaticFineTuning.hint(after: automaticChoice(defaults), frozenHeldOutAccuracy: frozenHeldOutAccuracy)
        }
        report.fineTuning = fineTuned.map { tuned in
            var section = tuned.report
            for index in section.epochs.indices { section.epochs[index].seconds = nil }
            for fold in (section.folds ?? []).indices {
                for index in section.folds![fold].epochs.indices { section.folds![fold].epochs[index].seconds = nil }
            }
            return section
        }
        var modelFile = try makeModelFile(
            report, labels: scan.labels, backboneTensors: backboneTensors,
            preprocessing: extractor.preprocessing, head: head, calibration: calibration, creationDate: creationDate,
            fineTuning: fineTuned?.improved?.record)
        modelFile.testTimeAugmentation = TestTimeAugmentationRecord(
            byDefault: request.testTimeAugmentation,
            mirrors: request.augmentation.flip)
        report.fineTuning = fineTuned?.report
        let finished = clock.now
        report.timings = .init(
            scanning: seconds(scanned - started), features: seconds(extracted - scanned),
            augmentation: request.augmentedViews > 0 ? seconds(augmented - extracted) : nil,
            selection: seconds(selected - augmented), training: seconds(fitted - augmented),
            fineTuning: fineTuned == nil ? nil : seconds(tunedAt - fitted),
            total: seconds(finished - started))
        return TrainingResult(
            report: report, modelFile: modelFile, predictions: evaluations.predictions,
            datasetWarnings: scan.datasetWarnings)
    }

    /// The report of a finished run, without timings; `preprocessing` is the one the features were computed with.
    static func makeReport(
        _ request: TrainingRequest, scan: TrainingScan, features: TrainingFeatures, heldOut: HeldOutSelection,
        head: FittedHead, calibration: HeadCalibration, evaluations: SplitEvaluations, backbone: String,
        preprocessing: ImagePreprocessing
    ) -> TrainingReport {
        let labels = scan.labels
        let heldOutImages = heldOut.countsPerLabel.reduce(0, +)
        func summary(_ evaluation: TrainingReport.SplitEvaluation?, images: Int) -> TrainingReport.SplitSummary {
            guard let evaluation else { return .init(accuracy: 0, count: 0, interval: nil, predictions: nil) }
            return .init(
                accuracy: evaluation.accuracy, count: images,
                interval: WilsonInterval.interval(proportion: evaluation.accuracy, count: images),
                predictions: evaluation.count > images ? evaluation.count : nil)
        }
        var splitCounts = counts(labels: labels, items: features.usableItems)
        if scan.layout.validation == nil {
            for label in labels.indices { splitCounts[label].validation = heldOut.countsPerLabel[label] }
        }
        let diagnostics = TrainingDiagnostics.warnings(
            labels: labels, trainingAccuracy: evaluations.training.accuracy,
            heldOut: evaluations.validation.map {
                .init(
                    accuracy: $0.accuracy, count: heldOutImages, countsPerLabel: heldOut.countsPerLabel,
                    confusion: $0.confusionMatrix)
            },
            testing: evaluations.testing.map { ($0.accuracy, $0.count) }
        ).map { "\($0)" }
        var selectionReport: TrainingReport.Selection?
        if let selection = heldOut.selection {
            var folds: Int?, repeats: Int?
            if case .crossValidation(let foldCount, let repeatCount) = selection.plan { (folds, repeats) = (foldCount, repeatCount) }
            selectionReport = .init(
                method: selection.plan?.summary ?? "validation folder", folds: folds, repeats: repeats,
                heldOutImages: heldOutImages, heldOutPredictions: heldOut.truths.count,
                grid: selection.candidates, chosen: selection.l2,
                refitOnAllTrainingImages: selection.fittedOnAll == nil)
        }
        return TrainingReport(
            labels: labels,
            training: summary(evaluations.training, images: evaluations.training.count),
            validation: summary(evaluations.validation, images: heldOutImages),
            testing: summary(evaluations.testing, images: evaluations.testing?.count ?? 0),
            counts: splitCounts,
            trainingEvaluation: evaluations.training, validationEvaluation: evaluations.validation,
            testingEvaluation: evaluations.testing,
            settings: .init(
                seed: request.seed,
                validationFraction: heldOutFraction(heldOut.selection?.plan),
                validationSource: heldOut.source, l2: head.settings.l2,
                l2Chosen: request.l2 == nil && heldOut.selection != nil, maxIterations: request.maxIterations,
                classWeighting: request.classWeighting.rawValue, iterations: head.outcome.iterations,
                converged: head.outcome.converged, preprocessing: preprocessing.summary,
                backbone: backbone,
                augmentedViews: request.augmentedViews > 0 ? request.augmentedViews : nil,
                augmentation: request.augmentedViews > 0 ? request.augmentation.describe : nil),
            selection: selectionReport, calibration: evaluations.calibration, thresholds: calibration.thresholds,
            unreadable: features.unreadable,
            warnings: scan.datasetWarnings.map { "\($0)" } + diagnostics,
            diagnostics: diagnostics,
            timings: nil)
    }

    /// The model file: the backbone's tensors (as given, so a fine-tuned backbone can be stored), the preprocessing
    /// the features were computed with (the backbone's), the head, the calibration and `report` as JSON.
    static func makeModelFile(
        _ report: TrainingReport, labels: [String], backboneTensors: [String: SafetensorsFile.Tensor],
        preprocessing: ImagePreprocessing, head: FittedHead, calibration: HeadCalibration, creationDate: Date,
        fineTuning: FineTuningRecord? = nil
    ) throws(WorkbenchError) -> ModelFile {
        ModelFile(
            labels: labels, preprocessing: preprocessing, backboneName: Backbone.name,
            backboneTensors: backboneTensors,
            head: HeadTensors(
                featureMean: head.standardizer.mean, featureScale: head.standardizer.scale,
                weights: head.outcome.model.weights, bias: head.outcome.model.bias),
            creationDate: iso8601(creationDate),
            workbenchVersion: WorkbenchInfo.version,
            trainingReportJSON: try encode(report), temperature: calibration.temperature,
            confidenceThreshold: calibration.confidenceThreshold, fineTuning: fineTuning)
    }

    /// The share of training images held out by `plan` (0 for cross-validation, where every image is held out once
    /// per repeat, and for a validation folder).
    private static func heldOutFraction(_ plan: HeldOutPlan?) -> Double {
        if case .holdOut(let fraction) = plan { return fraction }
        return 0
    }

    /// The dataset folders the request names, scanned and checked (what `run` trains on, and the files a
    /// workflow checks its outputs against before any work).
    public static func resolveLayout(_ request: TrainingRequest) throws(WorkbenchError) -> DatasetLayout {
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

    /// Images per label and split.
    static func counts(labels: [String], items: [TrainingItem]) -> [TrainingReport.LabelCounts] {
        var table = labels.map { TrainingReport.LabelCounts(label: $0, training: 0, validation: 0, testing: 0) }
        for item in items {
            switch item.split {
            case .training: table[item.label].training += 1
            case .validation: table[item.label].validation += 1
            case .testing: table[item.label].testing += 1
            }
        }
        return table
    }

    /// JSON with sorted keys, so equal reports give equal bytes (`/` escaped, as model files have always stored it).
    static func encode<Value: Encodable>(_ value: Value) throws(WorkbenchError) -> String {
        do {
            return try JSONWriter.text(value, layout: .sortedEscapingSlashes)
        } catch {
            throw WorkbenchError("cannot encode the training report: \(error)")
        }
    }

    /// The latest `$SOURCE_DATE_EPOCH` accepted: the last second of the year 9999, the most ISO 8601 can write.
    static let latestSourceDateEpoch = 253_402_300_799

    /// `$SOURCE_DATE_EPOCH` (the reproducible-builds convention: whole seconds since 1970) when set, so a rebuild
    /// can be byte-identical; anything else in it is an error rather than a nonsense date in the model.
    /// `$SOURCE_DATE_EPOCH` when set (so equal inputs give equal model files), else now; the detector's training
    /// dates its model file the same way.
    public static func reproducibleNow() throws(WorkbenchError) -> Date {
        guard let text = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], !text.isEmpty else { return Date() }
        guard let epoch = Int(text), (0...latestSourceDateEpoch).contains(epoch) else {
            throw WorkbenchError("SOURCE_DATE_EPOCH must be whole seconds since 1970, from 0 to \(latestSourceDateEpoch); got '\(text)'")
        }
        return Date(timeIntervalSince1970: Double(epoch))
    }

    /// The date as model files store it: ISO 8601, whole seconds, UTC.
    public static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
