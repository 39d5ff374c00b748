import Augmentation
import FileFormats
import FineTuning
import Foundation
import ImageCodecs
import Inference
import LogisticHead
import ModelFiles
import Models
import TensorCore
import TrainableLayers

/// The fine-tuning settings a `TrainingRequest` carries (`FineTuning.FineTuningSettings`).
public typealias FineTuningSettings = FineTuning.FineTuningSettings

/// Progress of `train --fine-tune`, for the CLI to render.
public enum FineTuningProgress: Sendable {
    /// Fine-tuning begins: the frozen head's held-out accuracy pooled over the `folds` held-out splits that will
    /// choose the epoch and decide.
    case frozenHead(heldOutAccuracy: Double, heldOutImages: Int, trainingImages: Int, firstTrainedBlock: Int, epochs: Int, folds: Int)
    /// The frozen layers' outputs computed so far (once, before the first epoch).
    case preparing(done: Int, total: Int)
    /// An epoch of one split finished; `fold` (from 1) is nil when there is one split.
    case epoch(
        fold: Int?, folds: Int, epoch: Int, epochs: Int, loss: Double, heldOutAccuracy: Double, imagesPerSecond: Double,
        secondsLeft: Double)
    /// The decision between the frozen head and fine-tuning, in one sentence (`FineTuningDecision.reason`), and
    /// `ErrorHint.keptFineTunedAsAsked` when it was kept because the request asked for it whatever it gained.
    case decision(String, hint: ErrorHint?)
    /// An epoch of a refit on all training images finished (nothing is held out); `refit` (from 1) is nil when
    /// there is one refit.
    case refitEpoch(refit: Int?, refits: Int, epoch: Int, epochs: Int, loss: Double, imagesPerSecond: Double, secondsLeft: Double)
    /// The automatic choice was made, in one line (`AutomaticFineTuning`), with what would help when it declined
    /// (`TrainingReport.FineTuningChoice.hint`).
    case automaticChoice(fineTunes: Bool, reason: String, hint: ErrorHint?)
    /// The fine-tuned backbone's features of every image, computed so far (for the report and the head's inputs).
    case rescoring(done: Int, total: Int)
}

/// The images fine-tuning reads: decoded, centre-cropped and resized to the network's input as every other path
/// does (`ImagePreprocessing.networkInput`, the backbone's preprocessing), without augmentation.
struct DecodedImageInputs: FineTuningInputSource {
    let paths: [String]
    let preprocessing: ImagePreprocessing
    let decodeOptions: DecodeOptions

    var variesByEpoch: Bool { false }
    var augmentationSummary: String { "none" }

    func networkInputs(for samples: [Int], epoch: Int?) throws(FineTuningError) -> [Float] {
        var values: [Float] = []
        for sample in samples {
            do {
                values += preprocessing.networkInput(from: try ImageLoader.load(path: paths[sample], options: decodeOptions))
            } catch {
                throw FineTuningError(path: error.path, reason: error.reason)
            }
        }
        return values
    }
}

/// The training images with a fresh augmented view each epoch (`Augmentation.AugmentedInputs`: decoded once, view
/// (seed, epoch, image) the same whatever the threads); held-out images (epoch nil) are read as `DecodedImageInputs`
/// reads them, never augmented.
struct AugmentedImageInputs: FineTuningInputSource {
    let plain: DecodedImageInputs
    let augmented: AugmentedInputs
    /// Sample → index into `augmented` (the training samples only are decoded and kept).
    let positions: [Int: Int]

    init(
        paths: [String], trainingSamples: [Int], policy: AugmentationPolicy, seed: UInt64,
        preprocessing: ImagePreprocessing, maximumPixels: Int, threads: Int
    ) throws(WorkbenchError) {
        plain = DecodedImageInputs(
            paths: paths, preprocessing: preprocessing,
            decodeOptions: preprocessing.decodeOptions(maximumPixels: maximumPixels))
        do {
            augmented = try AugmentedInputs(
                paths: trainingSamples.map { paths[$0] }, policy: policy, seed: seed,
                preprocessing: preprocessing, maximumPixels: maximumPixels, threads: threads)
        } catch {
            throw WorkbenchError(error, defaultPath: "augmentation")
        }
        positions = Dictionary(uniqueKeysWithValues: trainingSamples.enumerated().map { ($1, $0) })
    }

    var variesByEpoch: Bool { true }
    var augmentationSummary: String { augmented.policy.describe }

    func networkInputs(for samples: [Int], epoch: Int?) throws(FineTuningError) -> [Float] {
        guard let epoch else { return try plain.networkInputs(for: samples, epoch: nil) }
        do {
            // The loop already spreads the batch over its threads.
            return try augmented.inputs(images: samples.map { positions[$0]! }, epoch: epoch, threads: 1)
        } catch {
            throw FineTuningError(path: error.path, reason: error.reason)
        }
    }
}

/// Refit `refit`'s view of the inputs: training epoch `e` reads the base's epoch `e + refit × 1,000` (past any
/// run's epochs), so each refit of a soup sees augmented views of its own without decoding the images again; the
/// first refit (0) reads the base unchanged, and plain inputs are the same every epoch anyway.
struct ShiftedEpochInputs: FineTuningInputSource {
    let base: any FineTuningInputSource
    let refit: Int

    var variesByEpoch: Bool { base.variesByEpoch }
    var augmentationSummary: String { base.augmentationSummary }

    func networkInputs(for samples: [Int], epoch: Int?) throws(FineTuningError) -> [Float] {
        try base.networkInputs(for: samples, epoch: epoch.map { $0 + refit * FineTuningSettings.epochRange.upperBound })
    }
}

/// The fine-tuning step of `TrainingRun.run`, between `HeadCalibration` and `SplitEvaluations`: LP-FT from the
/// frozen head on the images it was fitted on, the epoch chosen on the held-out images the L2 strength was chosen
/// on (a validation folder, or a seeded stratified share of the training images, never trained on). When it beats
/// the frozen head there, the trained layers become backbone tensors, every image's features are recomputed
/// through the inference network built from them (what `classify` will run), the head is the trained dense layer
/// over the linear probe's standardiser, and the held-out logits are the kept epoch's, for the temperature.
struct FineTunedModel {
    /// The report's section (also when the frozen model was kept).
    var report: TrainingReport.FineTuning
    /// Nil when fine-tuning did not beat the frozen head.
    var improved: Improved?

    /// What replaces the frozen run's parts.
    struct Improved {
        var backboneTensors: [String: SafetensorsFile.Tensor]
        var features: TrainingFeatures
        var head: FittedHead
        var heldOut: HeldOutSelection
        var record: FineTuningRecord
        /// The kept epoch's held-out logits as the trainable network computed them, with their files.
        var trainingNetworkLogits: [Float]
        var heldOutPaths: [String]
        /// Whether the model was refitted on all images: its held-out logits are then the folds' models', not its own.
        var refitted: Bool

        /// `trainingNetworkLogits` as calibrated probabilities, for the report.
        func heldOutPredictions(temperature: Double, classCount: Int) -> [TrainingReport.FineTuning.HeldOutPrediction] {
            let probabilities = Softmax.probabilities(
                logits: trainingNetworkLogits, count: heldOutPaths.count,
                classCount: classCount, temperature: temperature)
            return heldOutPaths.enumerated().map { row, path in
                .init(path: path, probabilities: probabilities[(row * classCount)..<((row + 1) * classCount)].map(Double.init))
            }
        }
    }

    /// The held-out share of the training images when there is no validation folder and no `--validation-fraction`.
    static let defaultHeldOutFraction = 0.2

    static func train(
        _ settings: FineTuningSettings, augmentation: AugmentationPolicy, request: TrainingRequest, scan: TrainingScan, features: TrainingFeatures,
        heldOut: HeldOutSelection, head: FittedHead, extractor: FeatureExtractor, events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> FineTunedModel {
        guard var selection = heldOut.selection else {
            throw WorkbenchError("fine-tuning needs held-out images to choose its epoch: give a validation folder or a validation fraction above 0")
        }
        let training = features.training, validation = features.validation
        let classCount = scan.labels.count
        let plan = try FineTuningSplits.make(
            trainingLabels: training.labels, classCount: classCount, validationCount: validation.count,
            hasValidationFolder: scan.layout.validation != nil,
            fraction: request.validationFraction, seed: request.seed)
        let allLabels = training.labels + validation.labels
        let paths = training.paths + validation.paths
        let allFeatures = training.features + validation.features

        // Each split's frozen head (fitted on its training part with the chosen L2, scaled as the frozen head is)
        // and the linear probe fine-tuning starts from (the same, refitted over a floored standardiser).
        let probes = plan.splits.map { split in
            LinearProbe.fit(
                samples: split.training, features: allFeatures, labels: allLabels, classCount: classCount,
                head: head, allTraining: split.training.count == training.count)
        }
        let frozenScores = zip(plan.splits, probes).map { split, probe in
            probe.frozenAccuracy(on: split.heldOut, features: allFeatures, labels: allLabels)
        }
        let heldOutTotal = plan.splits.reduce(0) { $0 + $1.heldOut.count }
        var frozenCorrect = 0.0
        for (split, accuracy) in zip(plan.splits, frozenScores) { frozenCorrect += accuracy * Double(split.heldOut.count) }
        let frozenPooled = frozenCorrect / Double(heldOutTotal)
        events(
            .fineTuning(
                .frozenHead(
                    heldOutAccuracy: frozenPooled, heldOutImages: heldOutTotal,
                    trainingImages: training.count, firstTrainedBlock: settings.firstTrainedBlock,
                    epochs: settings.epochs, folds: plan.splits.count)))

        let inputs: any FineTuningInputSource
        if augmentation.isNone {
            inputs = DecodedImageInputs(paths: paths, preprocessing: extractor.preprocessing, decodeOptions: extractor.decodeOptions)
        } else {
            inputs = try AugmentedImageInputs(
                paths: paths, trainingSamples: Array(0..<training.count), policy: augmentation,
                seed: settings.seed, preprocessing: extractor.preprocessing,
                maximumPixels: extractor.settings.maximumPixels, threads: settings.threads)
        }
        let network = try extractor.loadedNetwork()

        // The splits run at once, each on its share of the threads: every epoch is scored, the decision chooses.
        let splitCount = plan.splits.count
        var splitSettings = settings
        splitSettings.requiresGain = false
        let outcomes = try runs(splitCount, threads: settings.threads, request: request, events: events) {
            (index: Int, threads: Int, forward: (TrainingEvent) -> Void) throws(FineTuningError) -> FineTuningOutcome in
            var own = splitSettings
            own.threads = threads
            let split = plan.splits[index]
            return try FineTuningLoop.run(
                network: network, head: probes[index].startHead, inputs: inputs, trainingSamples: split.training,
                trainingLabels: split.training.map { allLabels[$0] }, heldOutSamples: split.heldOut,
                heldOutLabels: split.heldOut.map { allLabels[$0] }, settings: own
            ) { event in
                switch event {
                case .preparing(let done, let total):
                    if index == 0 { forward(.fineTuning(.preparing(done: done, total: total))) }
                case .started: break
                case .epoch(let record, let imagesPerSecond, let secondsLeft):
                    forward(
                        .fineTuning(
                            .epoch(
                                fold: splitCount > 1 ? index + 1 : nil, folds: splitCount, epoch: record.epoch,
                                epochs: settings.epochs, loss: record.loss, heldOutAccuracy: record.heldOutAccuracy,
                                imagesPerSecond: imagesPerSecond, secondsLeft: secondsLeft)))
                }
            }
        }
        // One description per transform, as the model file's record lists them.
        let augmentations = augmentation.transforms.map { AugmentationPolicy(transforms: [$0]).describe }
        // The earliest divergence is the one the report names.
        let divergences = outcomes.compactMap { outcome in outcome.divergedAtEpoch.map { (epoch: $0, outcome: outcome) } }
        if let first = divergences.min(by: { $0.epoch < $1.epoch }), let record = first.outcome.epochs.last {
            warnDiverged(at: first.epoch, record: record, reference: first.outcome.divergenceReference, events: events)
        }
        let scores = zip(plan.splits, zip(frozenScores, outcomes)).map { split, pair in
            FineTuningFoldScores(
                heldOutImages: split.heldOut.count, frozenAccuracy: pair.0,
                epochAccuracies: pair.1.epochs.map(\.heldOutAccuracy), epochLosses: pair.1.epochs.map(\.heldOutLoss),
                divergedAtEpoch: pair.1.divergedAtEpoch)
        }
        let decision = FineTuningDecision.decide(scores, requiresGain: settings.requiresGain)
        let keptAsAsked = decision.keepsFineTuned && !settings.requiresGain
        events(.fineTuning(.decision(decision.reason, hint: keptAsAsked ? .keptFineTunedAsAsked : nil)))
        var report = makeReport(
            settings, plan: plan, outcomes: outcomes, scores: scores, decision: decision,
            trainingImages: training.count, augmentations: augmentations)
        guard decision.keepsFineTuned else { return FineTunedModel(report: report, improved: nil) }

        // The kept model: the one run's chosen epoch with a validation folder, else a refit on all training images.
        var classifier = outcomes[0].classifier
        var standardizer = probes[0].floored
        if plan.refits {
            let all = LinearProbe.fit(
                samples: Array(0..<training.count), features: allFeatures, labels: allLabels,
                classCount: classCount, head: head, allTraining: true)
            let refits = try refit(
                settings, epochs: decision.epoch, start: all.startHead, network: network, inputs: inputs,
                training: training, request: request, events: events)
            report.refitLosses = refits[0].epochs.map(\.loss)
            report.refits = settings.refits > 1 ? settings.refits : nil
            // The earliest divergence is the one named, as for the folds; its losses replace the first refit's.
            let divergences = refits.indices.compactMap { index in refits[index].divergedAtEpoch.map { (index: index, epoch: $0) } }
            if let first = divergences.min(by: { $0.epoch < $1.epoch }), let record = refits[first.index].epochs.last {
                let diverged = refits[first.index]
                warnDiverged(at: first.epoch, record: record, reference: diverged.divergenceReference, events: events)
                report.refitLosses = diverged.epochs.map(\.loss)
                report.keptFrozenModel = true
                report.bestEpoch = 0
                report.decision?.keptFineTuned = false
                let which = refits.count > 1 ? "refit \(first.index + 1)/\(refits.count)" : "the refit"
                report.decision?.reason += "; \(which) diverged at epoch \(first.epoch): kept the frozen head"
                return FineTunedModel(report: report, improved: nil)
            }
            classifier = TrainableClassifier.averaged(refits.map(\.classifier))
            standardizer = all.floored
        }

        // The held-out logits of the chosen epoch, pooled over the splits (each image once, by the run that never
        // trained on it): the temperature is fitted on them and the report's held-out figures are theirs.
        let heldOutSamples = plan.splits.flatMap { $0.heldOut }
        let pooledLogits = outcomes.flatMap { $0.epochLogits[decision.epoch - 1] }
        var countsPerLabel = [Int](repeating: 0, count: classCount)
        for sample in heldOutSamples { countsPerLabel[allLabels[sample]] += 1 }
        selection.heldOutLogits = pooledLogits
        let tunedHeldOut = HeldOutSelection(
            selection: selection, source: plan.refits ? "\(plan.method) of training, seed \(request.seed)" : heldOut.source,
            truths: heldOutSamples.map { allLabels[$0] }, paths: heldOutSamples.map { paths[$0] }, countsPerLabel: countsPerLabel)

        // The inference network from the converted tensors computes every feature from here on, as classify will.
        let trained = classifier.backbone
        let tensors = trained.backboneTensors(over: extractor.backbone.weights.tensors)
        let tunedFeatures = try rescore(features, backboneTensors: tensors, extractor: extractor, events: events)
        let dimension = EfficientNetLite0.featureCount
        let unfolded = LinearProbeHead.unfolded(classifier.classifier, mean: standardizer.mean, scale: standardizer.scale)
        let model = LogisticRegressionModel(classCount: classCount, dimension: dimension, weights: unfolded.weights, bias: unfolded.bias)
        var tunedHead = head
        tunedHead.standardizer = standardizer
        tunedHead.outcome = TrainingOutcome(
            model: model, iterations: head.outcome.iterations, finalLoss: head.outcome.finalLoss,
            converged: head.outcome.converged)
        let record = FineTuningRecord(
            firstTrainedBlock: settings.firstTrainedBlock, trainedTensorNames: trained.trainedTensorNames,
            epochs: decision.epoch, augmentations: augmentations, refits: plan.refits ? settings.refits : nil)
        return FineTunedModel(
            report: report,
            improved: Improved(
                backboneTensors: tensors, features: tunedFeatures,
                head: tunedHead, heldOut: tunedHeldOut, record: record,
                trainingNetworkLogits: pooledLogits,
                heldOutPaths: heldOutSamples.map { paths[$0] },
                refitted: plan.refits))
    }

    /// The refits on every training image for the chosen `epochs` (`settings.refits` of them, each with its own
    /// seed and augmented views, at once on a share of the threads like the folds), in refit order.
    private static func refit(
        _ settings: FineTuningSettings, epochs: Int, start: DenseLayer<Float>, network: EfficientNetLite0,
        inputs: any FineTuningInputSource, training: LabeledFeatures, request: TrainingRequest, events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> [FineTuningOutcome] {
        let count = settings.refits
        return try runs(count, threads: settings.threads, request: request, events: events) {
            (index: Int, threads: Int, forward: (TrainingEvent) -> Void) throws(FineTuningError) -> FineTuningOutcome in
            var own = settings
            own.epochs = epochs
            own.threads = threads
            own.seed = settings.seed &+ UInt64(index)
            return try FineTuningLoop.refit(
                network: network, head: start, inputs: ShiftedEpochInputs(base: inputs, refit: index),
                trainingSamples: Array(0..<training.count), trainingLabels: training.labels, settings: own
            ) { event in
                guard case .epoch(let record, let imagesPerSecond, let secondsLeft) = event else { return }
                forward(
                    .fineTuning(
                        .refitEpoch(
                            refit: count > 1 ? index + 1 : nil, refits: count, epoch: record.epoch, epochs: epochs,
                            loss: record.loss, imagesPerSecond: imagesPerSecond, secondsLeft: secondsLeft)))
            }
        }
    }

    /// `count` fine-tuning runs (the folds, or the refits): at once, each on its share of `threads`, when there are
    /// several and threads to share, else one after another. `run` gets its index, its threads and a `forward` that
    /// passes its events on one at a time. The outcomes in index order, or the first failure named by its file.
    private static func runs(
        _ count: Int, threads: Int, request: TrainingRequest, events: (TrainingEvent) -> Void,
        _ run: (_ index: Int, _ threads: Int, _ forward: (TrainingEvent) -> Void) throws(FineTuningError) -> FineTuningOutcome
    ) throws(WorkbenchError) -> [FineTuningOutcome] {
        let concurrent = count > 1 && threads > 1
        let share = concurrent ? max(1, threads / count) : threads
        var results = [Result<FineTuningOutcome, FineTuningError>](repeating: .failure(FineTuningError(reason: "not run")), count: count)
        let lock = NSLock()
        withoutActuallyEscaping(events) { events in
            withoutActuallyEscaping(run) { run in
                func forward(_ event: TrainingEvent) {
                    lock.lock()
                    defer { lock.unlock() }
                    events(event)
                }
                results.withUnsafeMutableBufferPointer { slots in
                    let shared = UncheckedSendable(slots)
                    // Each index writes only its own slot.
                    let body: (Int) -> Void = { index in
                        shared.value[index] = Result { () throws(FineTuningError) -> FineTuningOutcome in try run(index, share, forward) }
                    }
                    if concurrent { Self.concurrently(count, body) } else { (0..<count).forEach(body) }
                }
            }
        }
        var outcomes: [FineTuningOutcome] = []
        for result in results {
            switch result {
            case .success(let outcome): outcomes.append(outcome)
            case .failure(let error): throw WorkbenchError(path: error.path ?? request.datasetPath, reason: error.reason)
            }
        }
        return outcomes
    }

    /// The report's section: each split, their pooled curve (what the page draws), the decision.
    private static func makeReport(
        _ settings: FineTuningSettings, plan: FineTuningSplits, outcomes: [FineTuningOutcome], scores: [FineTuningFoldScores],
        decision: FineTuningDecision, trainingImages: Int, augmentations: [String]
    ) -> TrainingReport.FineTuning {
        let heldOutImages = decision.heldOutImages
        let epochCount = outcomes.map(\.epochs.count).min() ?? 0
        // Pooled over the splits: held-out figures weighted by their images, the training loss by the splits' mean.
        let pooled: [TrainingReport.FineTuning.Epoch] = (0..<epochCount).map { index in
            var loss = 0.0, heldOutLoss = 0.0, correct = 0.0, seconds = 0.0
            for (outcome, score) in zip(outcomes, scores) {
                let record = outcome.epochs[index]
                loss += record.loss / Double(outcomes.count)
                heldOutLoss += record.heldOutLoss * Double(score.heldOutImages) / Double(heldOutImages)
                correct += (record.heldOutAccuracy * Double(score.heldOutImages)).rounded()
                seconds = max(seconds, record.seconds)
            }
            return .init(
                epoch: index + 1, loss: loss, heldOutLoss: heldOutLoss, heldOutAccuracy: correct / Double(heldOutImages),
                seconds: seconds)
        }
        let folds = zip(plan.splits, zip(outcomes, scores)).map { split, pair in
            TrainingReport.FineTuning.Fold(
                trainingImages: split.training.count, heldOutImages: split.heldOut.count, frozenHeldOutAccuracy: pair.1.frozenAccuracy,
                fineTunedHeldOutAccuracy: decision.epoch > 0 ? pair.1.epochAccuracies[decision.epoch - 1] : pair.1.frozenAccuracy,
                epochs: pair.0.epochs.map {
                    .init(
                        epoch: $0.epoch, loss: $0.loss, heldOutLoss: $0.heldOutLoss,
                        heldOutAccuracy: $0.heldOutAccuracy, seconds: $0.seconds)
                },
                divergedAtEpoch: pair.0.divergedAtEpoch)
        }
        let frozen = scores.reduce(0.0) { $0 + $1.frozenAccuracy * Double($1.heldOutImages) } / Double(max(1, heldOutImages))
        let reached = decision.epoch > 0 ? pooled[decision.epoch - 1].heldOutAccuracy : frozen
        var section = TrainingReport.FineTuning(
            trainedBlocks: settings.trainedBlocks, firstTrainedBlock: settings.firstTrainedBlock, epochs: pooled,
            bestEpoch: decision.keepsFineTuned ? decision.epoch : 0, augmentations: augmentations, trainingImages: trainingImages,
            heldOutImages: heldOutImages, frozenHeldOutAccuracy: frozen, fineTunedHeldOutAccuracy: reached, gain: reached - frozen,
            keptFrozenModel: !decision.keepsFineTuned, bestTrainedEpoch: decision.epoch,
            divergedAtEpoch: scores.compactMap(\.divergedAtEpoch).min(), batchSize: settings.batchSize,
            backboneLearningRate: settings.backboneLearningRate, headLearningRate: settings.headLearningRate,
            weightDecay: settings.weightDecay, labelSmoothing: settings.labelSmoothing, warmupFraction: settings.warmupFraction,
            optimizer: settings.optimizer.summary, threads: settings.threads)
        section.folds = folds
        section.fineTunedWeight = settings.fineTunedWeight == 1 ? nil : settings.fineTunedWeight
        section.decision = .init(
            method: plan.method.description, epoch: decision.epoch, gainedImages: decision.gainedImages,
            heldOutImages: heldOutImages, meanGain: decision.meanGain, standardError: decision.standardError,
            keptFineTuned: decision.keepsFineTuned, reason: decision.reason,
            refit: plan.refits && decision.keepsFineTuned)
        return section
    }

    /// The warning of a diverged run: its loss against the reference, and what to try.
    private static func warnDiverged(at epoch: Int, record: FineTuningEpoch, reference: Double, events: (TrainingEvent) -> Void) {
        let why =
            record.loss.isFinite && record.heldOutLoss.isFinite
            ? "training loss \(String(format: "%.4g", record.loss)), over \(Int(FineTuningLoop.divergenceFactor)) times \(String(format: "%.3g", reference)), the start's loss or a uniform guess's"
            : "training loss \(record.loss), held-out loss \(record.heldOutLoss): not finite"
        events(.warning("fine-tuning diverged at epoch \(epoch) (\(why)): stopped and kept the frozen model; try a lower learning rate"))
    }

    /// Every split's features through the fine-tuned backbone (uncached: what `classify` will compute).
    private static func rescore(
        _ features: TrainingFeatures, backboneTensors: [String: SafetensorsFile.Tensor], extractor: FeatureExtractor,
        events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> TrainingFeatures {
        var featureSettings = extractor.settings
        featureSettings.usesCache = false  // features of a one-off backbone would only fill the cache
        let tunedBackbone = Backbone(
            weights: SafetensorsFile(tensors: backboneTensors), source: "the fine-tuned backbone",
            preprocessing: extractor.preprocessing)
        let tunedExtractor = FeatureExtractor(backbone: tunedBackbone, settings: featureSettings)
        let total = features.training.count + features.validation.count + features.testing.count
        var done = 0
        func rescored(_ set: LabeledFeatures) throws(WorkbenchError) -> LabeledFeatures {
            var values: [Float] = []
            values.reserveCapacity(set.features.count)
            var failure: WorkbenchError?
            tunedExtractor.extract(paths: set.paths) { _, _, result in
                done += 1
                events(.fineTuning(.rescoring(done: done, total: total)))
                switch result {
                case .success(let vector): values += vector; return true
                case .failure(let error): failure = error; return false
                }
            }
            if let failure { throw failure }
            var result = set
            result.features = values
            return result
        }
        var tuned = features
        tuned.training = try rescored(features.training)
        tuned.validation = try rescored(features.validation)
        tuned.testing = try rescored(features.testing)
        return tuned
    }

    /// Runs `body` for `0..<count`, each on a thread of its own started at once, and waits for all: three folds on
    /// two cores finish sooner together than two and then one. Each index's work depends only on its index.
    ///
    /// The threads reach `body` through an unretained handle on a box the caller owns and empties before returning,
    /// so no `Thread` object still holds the closure when `withoutActuallyEscaping` ends (a thread releases its block
    /// after the work it signals as done).
    private static func concurrently(_ count: Int, _ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            let box = ClosureBox(body)
            let handle = UncheckedSendable(Unmanaged.passUnretained(box))
            let group = UncheckedSendable(DispatchGroup())
            for index in 0..<count {
                group.value.enter()
                let thread = Thread {
                    handle.value.takeUnretainedValue().body?(index)
                    group.value.leave()
                }
                thread.stackSize = 16 << 20
                thread.start()
            }
            group.value.wait()
            box.body = nil
        }
    }

    /// Holds the work of `concurrently` for its threads.
    private final class ClosureBox {
        var body: ((Int) -> Void)?
        init(_ body: @escaping (Int) -> Void) { self.body = body }
    }
}

/// The frozen head of one split and the linear probe fine-tuning starts from.
///
/// The frozen head is the logistic head fitted on the split's training part with the L2 the frozen model chose,
/// over scikit-learn's standardiser (as the frozen model is); the probe is the same refitted over a floored
/// standardiser (see `Standardizer`): the unfloored scaling divides near-constant features by their tiny spread, and
/// fine-tuning then moves them by far more.
struct LinearProbe {
    var frozen: (standardizer: Standardizer, model: LogisticRegressionModel)
    var floored: Standardizer
    var model: LogisticRegressionModel

    /// The probe folded into the dense layer the trainable network ends in.
    var startHead: DenseLayer<Float> {
        LinearProbeHead.folded(weights: model.weights, bias: model.bias, mean: floored.mean, scale: floored.scale)
    }

    /// Fits on `samples` (rows of `features`); `allTraining` reuses `head`, already fitted on exactly those.
    static func fit(
        samples: [Int], features: [Float], labels: [Int], classCount: Int, head: FittedHead,
        allTraining: Bool
    ) -> LinearProbe {
        let dimension = EfficientNetLite0.featureCount
        var rows = [Float](); rows.reserveCapacity(samples.count * dimension)
        for sample in samples { rows += features[(sample * dimension)..<((sample + 1) * dimension)] }
        let sampleLabels = samples.map { labels[$0] }
        var frozen = (standardizer: head.standardizer, model: head.outcome.model)
        if !allTraining {
            let standardizer = Standardizer(fitting: rows, count: samples.count, dimension: dimension)
            let outcome = LogisticRegressionTrainer.train(
                features: standardizer.apply(rows, count: samples.count), labels: sampleLabels, count: samples.count,
                dimension: dimension, classCount: classCount, settings: head.settings,
                initialModel: head.outcome.model.restandardized(from: head.standardizer, to: standardizer))
            frozen = (standardizer, outcome.model)
        }
        let floored = Standardizer(fitting: rows, count: samples.count, dimension: dimension, floor: .medianDeviation)
        let refit = LogisticRegressionTrainer.train(
            features: floored.apply(rows, count: samples.count), labels: sampleLabels, count: samples.count,
            dimension: dimension, classCount: classCount, settings: head.settings,
            initialModel: frozen.model.restandardized(from: frozen.standardizer, to: floored))
        return LinearProbe(frozen: frozen, floored: floored, model: refit.model)
    }

    /// The frozen head's accuracy on `samples`.
    func frozenAccuracy(on samples: [Int], features: [Float], labels: [Int]) -> Double {
        let dimension = EfficientNetLite0.featureCount
        var rows = [Float](); rows.reserveCapacity(samples.count * dimension)
        for sample in samples { rows += features[(sample * dimension)..<((sample + 1) * dimension)] }
        let logits = frozen.model.logits(frozen.standardizer.apply(rows, count: samples.count), count: samples.count)
        let classes = frozen.model.classCount
        var correct = 0
        for (row, sample) in samples.enumerated() where logits[(row * classes)..<((row + 1) * classes)].indexOfMaximum == labels[sample] {
            correct += 1
        }
        return Double(correct) / Double(max(1, samples.count))
    }
}
