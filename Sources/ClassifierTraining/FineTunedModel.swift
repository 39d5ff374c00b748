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
    /// Fine-tuning begins: the frozen head's held-out accuracy on the images that will choose the epoch.
    case frozenHead(heldOutAccuracy: Double, heldOutImages: Int, trainingImages: Int, firstTrainedBlock: Int, epochs: Int)
    /// The frozen layers' outputs computed so far (once, before the first epoch).
    case preparing(done: Int, total: Int)
    /// An epoch finished.
    case epoch(epoch: Int, epochs: Int, loss: Double, heldOutAccuracy: Double, imagesPerSecond: Double, secondsLeft: Double)
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

    init(paths: [String], trainingSamples: [Int], policy: AugmentationPolicy, seed: UInt64,
         preprocessing: ImagePreprocessing, maximumPixels: Int, threads: Int) throws(WorkbenchError) {
        plain = DecodedImageInputs(paths: paths, preprocessing: preprocessing,
                                   decodeOptions: preprocessing.decodeOptions(maximumPixels: maximumPixels))
        do {
            augmented = try AugmentedInputs(paths: trainingSamples.map { paths[$0] }, policy: policy, seed: seed,
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

        /// `trainingNetworkLogits` as calibrated probabilities, for the report.
        func heldOutPredictions(temperature: Double, classCount: Int) -> [TrainingReport.FineTuning.HeldOutPrediction] {
            let probabilities = Softmax.probabilities(logits: trainingNetworkLogits, count: heldOutPaths.count,
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
        guard let selection = heldOut.selection else {
            throw WorkbenchError("fine-tuning needs held-out images to choose its epoch: give a validation folder or a validation fraction above 0")
        }
        // The linear probe that did not see the held-out images, and which images it was fitted on.
        let training = features.training
        var probe: (standardizer: Standardizer, model: LogisticRegressionModel)
        var trainingSamples: [Int], heldOutSamples: [Int]
        if let fitted = selection.fittedOnAll {
            probe = (fitted.standardizer, fitted.outcome.model)
            trainingSamples = Array(0..<training.count)
            heldOutSamples = Array(training.count..<(training.count + features.validation.count))
        } else if let warmStart = selection.warmStart, case .holdOut = selection.plan {
            probe = warmStart
            heldOutSamples = selection.heldOutSamples
            let heldOutSet = Set(heldOutSamples)
            trainingSamples = (0..<training.count).filter { !heldOutSet.contains($0) }
        } else {
            throw WorkbenchError("fine-tuning needs a held-out share or a validation folder, not cross-validation")
        }
        // Refitted over a floored standardiser (see `Standardizer`): the frozen head's scikit-learn scaling divides
        // near-constant features by their tiny spread, and fine-tuning then moves them by far more.
        do {
            let dimension = EfficientNetLite0.featureCount
            var rows = [Float](); rows.reserveCapacity(trainingSamples.count * dimension)
            for sample in trainingSamples { rows += training.features[(sample * dimension)..<((sample + 1) * dimension)] }
            let floored = Standardizer(fitting: rows, count: trainingSamples.count, dimension: dimension, floor: .medianDeviation)
            let refit = LogisticRegressionTrainer.train(
                features: floored.apply(rows, count: trainingSamples.count), labels: trainingSamples.map { training.labels[$0] },
                count: trainingSamples.count, dimension: dimension, classCount: probe.model.classCount, settings: head.settings,
                initialModel: probe.model.restandardized(from: probe.standardizer, to: floored))
            probe = (floored, refit.model)
        }
        let allLabels = training.labels + features.validation.labels
        let frozenAccuracy = selection.candidates[selection.chosenIndex].accuracy
        events(.fineTuning(.frozenHead(heldOutAccuracy: frozenAccuracy, heldOutImages: heldOutSamples.count,
                                       trainingImages: trainingSamples.count, firstTrainedBlock: settings.firstTrainedBlock,
                                       epochs: settings.epochs)))

        let paths = training.paths + features.validation.paths
        let inputs: any FineTuningInputSource
        if augmentation.isNone {
            inputs = DecodedImageInputs(paths: paths, preprocessing: extractor.preprocessing, decodeOptions: extractor.decodeOptions)
        } else {
            inputs = try AugmentedImageInputs(paths: paths, trainingSamples: trainingSamples, policy: augmentation, seed: settings.seed,
                                              preprocessing: extractor.preprocessing,
                                              maximumPixels: extractor.settings.maximumPixels, threads: settings.threads)
        }
        let network = try extractor.loadedNetwork()
        let startHead = LinearProbeHead.folded(weights: probe.model.weights, bias: probe.model.bias,
                                               mean: probe.standardizer.mean, scale: probe.standardizer.scale)
        let outcome: FineTuningOutcome
        do {
            outcome = try FineTuningLoop.run(
                network: network, head: startHead, inputs: inputs, trainingSamples: trainingSamples,
                trainingLabels: trainingSamples.map { allLabels[$0] }, heldOutSamples: heldOutSamples,
                heldOutLabels: heldOutSamples.map { allLabels[$0] }, settings: settings
            ) { event in
                switch event {
                case .preparing(let done, let total): events(.fineTuning(.preparing(done: done, total: total)))
                case .started: break
                case .epoch(let record, let imagesPerSecond, let secondsLeft):
                    events(.fineTuning(.epoch(epoch: record.epoch, epochs: settings.epochs, loss: record.loss,
                                              heldOutAccuracy: record.heldOutAccuracy, imagesPerSecond: imagesPerSecond,
                                              secondsLeft: secondsLeft)))
                }
            }
        } catch {
            throw WorkbenchError(path: error.path ?? request.datasetPath, reason: error.reason)
        }
        // One description per transform, as the model file's record lists them.
        let augmentations = augmentation.transforms.map { AugmentationPolicy(transforms: [$0]).describe }
        // A diverged run keeps the frozen model whatever an earlier epoch scored: its weights are not to be trusted.
        if let diverged = outcome.divergedAtEpoch, let record = outcome.epochs.last {
            let reference = outcome.divergenceReference
            let why = record.loss.isFinite && record.heldOutLoss.isFinite
                ? "training loss \(String(format: "%.4g", record.loss)), over \(Int(FineTuningLoop.divergenceFactor)) times \(String(format: "%.3g", reference)), the start's loss or a uniform guess's"
                : "training loss \(record.loss), held-out loss \(record.heldOutLoss): not finite"
            events(.warning("fine-tuning diverged at epoch \(diverged) (\(why)): stopped and kept the frozen model; try a lower learning rate"))
        }
        let improves = outcome.divergedAtEpoch == nil && outcome.bestEpoch > 0
            && (outcome.heldOutAccuracy > frozenAccuracy || !settings.requiresGain)
        // What fine-tuning reached: the kept epoch, else its best epoch (never the untrained start's score).
        let bestTrained = outcome.bestEpoch > 0 && outcome.divergedAtEpoch == nil ? outcome.bestEpoch : outcome.bestTrainedEpoch
        let reachedAccuracy = bestTrained > 0 ? outcome.epochs[bestTrained - 1].heldOutAccuracy : outcome.initialHeldOutAccuracy
        let report = TrainingReport.FineTuning(
            trainedBlocks: settings.trainedBlocks, firstTrainedBlock: settings.firstTrainedBlock,
            epochs: outcome.epochs.map { .init(epoch: $0.epoch, loss: $0.loss, heldOutLoss: $0.heldOutLoss,
                                               heldOutAccuracy: $0.heldOutAccuracy, seconds: $0.seconds) },
            bestEpoch: outcome.bestEpoch, augmentations: augmentations, trainingImages: trainingSamples.count,
            heldOutImages: heldOutSamples.count, frozenHeldOutAccuracy: frozenAccuracy,
            fineTunedHeldOutAccuracy: reachedAccuracy, gain: reachedAccuracy - frozenAccuracy,
            keptFrozenModel: !improves, bestTrainedEpoch: bestTrained, divergedAtEpoch: outcome.divergedAtEpoch, batchSize: settings.batchSize, backboneLearningRate: settings.backboneLearningRate,
            headLearningRate: settings.headLearningRate, weightDecay: settings.weightDecay,
            labelSmoothing: settings.labelSmoothing, warmupFraction: settings.warmupFraction,
            optimizer: settings.optimizer.summary, threads: settings.threads)
        guard improves else { return FineTunedModel(report: report, improved: nil) }

        // The inference network from the converted tensors computes every feature from here on, as classify will.
        let trained = outcome.classifier.backbone
        let tensors = trained.backboneTensors(over: extractor.backbone.weights.tensors)
        var featureSettings = extractor.settings
        featureSettings.usesCache = false  // features of a one-off backbone would only fill the cache
        let tunedBackbone = Backbone(weights: SafetensorsFile(tensors: tensors), source: "the fine-tuned backbone",
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
        var tunedFeatures = features
        tunedFeatures.training = try rescored(features.training)
        tunedFeatures.validation = try rescored(features.validation)
        tunedFeatures.testing = try rescored(features.testing)

        let dimension = EfficientNetLite0.featureCount, classCount = scan.labels.count
        let unfolded = LinearProbeHead.unfolded(outcome.classifier.classifier, mean: probe.standardizer.mean,
                                                scale: probe.standardizer.scale)
        let model = LogisticRegressionModel(classCount: classCount, dimension: dimension, weights: unfolded.weights, bias: unfolded.bias)
        var tunedHead = head
        tunedHead.standardizer = probe.standardizer
        tunedHead.outcome = TrainingOutcome(model: model, iterations: head.outcome.iterations, finalLoss: head.outcome.finalLoss,
                                            converged: head.outcome.converged)
        // The held-out logits of the kept epoch, through the converted network: the temperature is fitted on them.
        var heldOutFeatures: [Float] = []
        let pooled = tunedFeatures.training.features + tunedFeatures.validation.features
        for sample in heldOutSamples { heldOutFeatures += pooled[(sample * dimension)..<((sample + 1) * dimension)] }
        var tunedHeldOut = heldOut
        tunedHeldOut.selection?.heldOutLogits = tunedHead.logits(
            LabeledFeatures(features: heldOutFeatures, labels: heldOutSamples.map { allLabels[$0] },
                            paths: heldOutSamples.map { paths[$0] }))
        let record = FineTuningRecord(firstTrainedBlock: settings.firstTrainedBlock, trainedTensorNames: trained.trainedTensorNames,
                                      epochs: outcome.bestEpoch, augmentations: augmentations)
        return FineTunedModel(report: report, improved: Improved(backboneTensors: tensors, features: tunedFeatures,
                                                                 head: tunedHead, heldOut: tunedHeldOut, record: record,
                                                                 trainingNetworkLogits: outcome.heldOutLogits,
                                                                 heldOutPaths: heldOutSamples.map { paths[$0] }))
    }
}
