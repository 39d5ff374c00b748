import Foundation
import Models
import TensorCore
import TrainableLayers

/// One finished epoch of fine-tuning.
public struct FineTuningEpoch: Sendable, Equatable, Codable {
    /// From 1.
    public var epoch: Int
    /// Mean training loss over the epoch's steps (label-smoothed cross-entropy, as optimised).
    public var loss: Double
    /// Mean cross-entropy of the held-out images, without smoothing.
    public var heldOutLoss: Double
    /// Fraction of held-out images right.
    public var heldOutAccuracy: Double
    /// Wall-clock seconds of the epoch, its held-out evaluation included.
    public var seconds: Double

    /// An epoch's record.
    public init(epoch: Int, loss: Double, heldOutLoss: Double, heldOutAccuracy: Double, seconds: Double) {
        self.epoch = epoch
        self.loss = loss
        self.heldOutLoss = heldOutLoss
        self.heldOutAccuracy = heldOutAccuracy
        self.seconds = seconds
    }
}

/// Progress of a fine-tuning run.
public enum FineTuningEvent: Sendable {
    /// The frozen layers' outputs computed so far (once, before the first epoch, without augmentation).
    case preparing(done: Int, total: Int)
    /// The starting model (the linear probe on the untrained network) scored this on the held-out images.
    case started(heldOutAccuracy: Double, heldOutImages: Int)
    /// An epoch finished: its record, training images per second, and the estimated seconds left.
    case epoch(FineTuningEpoch, imagesPerSecond: Double, secondsLeft: Double)
}

/// What a fine-tuning run produced.
public struct FineTuningOutcome: Sendable {
    /// The trained network and head of the best epoch (the starting model when no epoch beat it).
    public var classifier: TrainableClassifier
    /// Every epoch, in order.
    public var epochs: [FineTuningEpoch]
    /// The epoch kept (from 1), or 0 when no epoch beat the starting model on the held-out images.
    public var bestEpoch: Int
    /// The starting model's held-out accuracy.
    public var initialHeldOutAccuracy: Double
    /// The kept model's held-out logits, `[heldOut, classes]`, in the order the held-out samples were given.
    public var heldOutLogits: [Float]
    /// Every epoch's held-out logits (index `epoch − 1`), each `[heldOut, classes]`: the folds pool the chosen
    /// epoch's to fit the temperature.
    public var epochLogits: [[Float]] = []
    /// The kept model's held-out accuracy.
    public var heldOutAccuracy: Double { bestEpoch == 0 ? initialHeldOutAccuracy : epochs[bestEpoch - 1].heldOutAccuracy }
    /// The epoch whose training loss broke `FineTuningLoop.isDiverging` (the last in `epochs`: the run stopped
    /// there), or nil. That epoch is never kept.
    public var divergedAtEpoch: Int?
    /// The loss an epoch's was compared with (`FineTuningLoop.divergenceReference`).
    public var divergenceReference: Double
    /// The best trained epoch by the loop's rule (held-out accuracy, then lower held-out loss, then the earlier),
    /// whether or not it beat the start, leaving out a diverged epoch unless it is the only one; 0 without epochs.
    public var bestTrainedEpoch: Int {
        var best = 0
        for record in epochs where record.epoch != divergedAtEpoch || epochs.count == 1 {
            guard best > 0 else { best = record.epoch; continue }
            let current = epochs[best - 1]
            if record.heldOutAccuracy > current.heldOutAccuracy
                || (record.heldOutAccuracy == current.heldOutAccuracy && record.heldOutLoss < current.heldOutLoss)
            {
                best = record.epoch
            }
        }
        return best
    }
}

/// One optimizer step at a time on a trainable classifier: the gradient of a batch, the scheduled rates (the
/// head's and the backbone's), weight decay on convolution and dense weights only.
public struct FineTuningTrainer: Sendable {
    /// The model being trained.
    public var classifier: TrainableClassifier
    /// The settings (rates, decay, threads).
    public let settings: FineTuningSettings
    /// The rates' schedule over the run.
    public let schedule: LearningRateSchedule
    /// Steps taken.
    public private(set) var step = 0
    private var optimizer: Optimizer

    /// A trainer of `classifier` for a run of `totalSteps` steps.
    public init(classifier: TrainableClassifier, settings: FineTuningSettings, totalSteps: Int) {
        self.classifier = classifier
        self.settings = settings
        let warmup = settings.warmupFraction > 0 ? max(1, Int((settings.warmupFraction * Double(totalSteps)).rounded())) : 0
        schedule = LearningRateSchedule(warmupSteps: warmup, totalSteps: totalSteps)
        optimizer = Optimizer(kind: settings.optimizer)
    }

    /// Whether a parameter is decayed: the weights of convolutions and of the dense layer, not scales and biases
    /// (decaying a folded batch norm's scale toward 0 would shrink a whole channel).
    public static func isDecayed(_ name: String) -> Bool { name.hasSuffix(".weights") }

    /// Whether a parameter is the head's (it gets `headLearningRate`).
    public static func isHead(_ name: String) -> Bool { name.hasPrefix("classifier.") }

    /// One step on `input` (the trained part's input, `[batch] + inputItemShape`) and `labels`; returns the
    /// batch's mean loss before the step.
    @discardableResult
    public mutating func train(on input: Tensor<Float>, labels: [Int]) -> Double {
        let (loss, gradients) = classifier.lossAndGradients(input, labels: labels, threads: settings.threads)
        let factor = schedule.factor(atStep: step)
        // Moved out while in use, so each moment buffer has one owner and is updated in place.
        var optimizer = self.optimizer
        self.optimizer = Optimizer(kind: settings.optimizer)
        let settings = self.settings
        classifier.update(with: gradients) { name, parameter, gradient in
            let rate = (Self.isHead(name) ? settings.headLearningRate : settings.backboneLearningRate) * factor
            optimizer.step(
                name, parameter: &parameter, gradient: gradient, learningRate: rate,
                weightDecay: Self.isDecayed(name) ? settings.weightDecay : 0)
        }
        self.optimizer = optimizer
        step += 1
        return loss
    }
}

/// The fine-tuning loop: the top `trainedBlocks` blocks, the final 1×1 convolution and the head train together
/// from the linear probe (LP-FT); the layers below run on the fast inference path (`FrozenLayers`), once per image
/// when the inputs do not change between epochs. Each epoch visits the training images in a seeded random
/// order, in batches split over the threads; after it the held-out images are scored and the best epoch by
/// held-out accuracy (ties: lower held-out loss, then the earlier) is kept, the untrained start among the
/// candidates unless `settings.requiresGain` is false. Deterministic for a given seed and thread count.
///
/// A diverging run stops: after an epoch whose mean training loss is not finite or above `divergenceFactor` times
/// `divergenceReference` (or whose held-out loss is not finite), no further epoch runs and that epoch is not kept
/// (`FineTuningOutcome.divergedAtEpoch`).
public enum FineTuningLoop {
    /// An epoch's training loss above this many times `divergenceReference` means the run diverged: a learning
    /// rate that works keeps the loss near the start's, and one too high took it from 1.07 to 231, or to 1,074 in
    /// the first epoch.
    public static let divergenceFactor = 10.0

    /// The loss divergence is measured against: the starting model's held-out loss, or the loss of guessing every
    /// label alike, ln(classes), when that is larger (a start that fits its images closely has a loss near 0).
    public static func divergenceReference(startingLoss: Double, classCount: Int) -> Double {
        max(startingLoss.isFinite ? startingLoss : 0, log(Double(max(2, classCount))))
    }

    /// Whether `epoch` shows divergence: a loss that is not finite, or a training loss above `divergenceFactor`
    /// times `reference` (`divergenceReference`).
    public static func isDiverging(_ epoch: FineTuningEpoch, reference: Double) -> Bool {
        !epoch.loss.isFinite || !epoch.heldOutLoss.isFinite || epoch.loss > divergenceFactor * reference
    }

    /// Images whose frozen-layer outputs are computed per call, to bound the decoded inputs held at once.
    static let chunkSize = 32

    /// Fine-tunes the top of `network` with `head` (`LinearProbeHead.folded`) as the starting classifier.
    ///
    /// `trainingSamples` and `heldOutSamples` are `inputs`' indices, each with its label. Throws when the settings
    /// are out of bounds, a set is empty, or `inputs` fails.
    public static func run(
        network: EfficientNetLite0, head: DenseLayer<Float>, inputs: any FineTuningInputSource,
        trainingSamples: [Int], trainingLabels: [Int], heldOutSamples: [Int], heldOutLabels: [Int],
        settings: FineTuningSettings,
        events: (FineTuningEvent) -> Void
    ) throws(FineTuningError) -> FineTuningOutcome {
        guard !heldOutSamples.isEmpty else { throw FineTuningError(reason: "fine-tuning needs held-out images to choose its epoch") }
        return try train(
            network: network, head: head, inputs: inputs, trainingSamples: trainingSamples,
            trainingLabels: trainingLabels, heldOutSamples: heldOutSamples, heldOutLabels: heldOutLabels,
            settings: settings, events: events)
    }

    /// The refit after choosing: the same training as `run` over `trainingSamples` (all the training images) for
    /// `settings.epochs` epochs, with nothing held out, so the last epoch is the model; the warm-up and cosine
    /// schedule is squeezed into those epochs. Its epochs' held-out figures are 0 (nothing to score). A diverging refit stops as `run` does
    /// (`divergedAtEpoch`), its reference then the uniform guess's loss, ln(classes).
    public static func refit(
        network: EfficientNetLite0, head: DenseLayer<Float>, inputs: any FineTuningInputSource,
        trainingSamples: [Int], trainingLabels: [Int], settings: FineTuningSettings,
        events: (FineTuningEvent) -> Void
    ) throws(FineTuningError) -> FineTuningOutcome {
        try train(
            network: network, head: head, inputs: inputs, trainingSamples: trainingSamples,
            trainingLabels: trainingLabels, heldOutSamples: [], heldOutLabels: [], settings: settings, events: events)
    }

    /// `run` and `refit`: with no held-out samples every epoch replaces the kept model.
    private static func train(
        network: EfficientNetLite0, head: DenseLayer<Float>, inputs: any FineTuningInputSource,
        trainingSamples: [Int], trainingLabels: [Int], heldOutSamples: [Int], heldOutLabels: [Int],
        settings: FineTuningSettings,
        events: (FineTuningEvent) -> Void
    ) throws(FineTuningError) -> FineTuningOutcome {
        if let problem = settings.problem { throw FineTuningError(reason: problem) }
        precondition(
            trainingSamples.count == trainingLabels.count && heldOutSamples.count == heldOutLabels.count,
            "FineTuningLoop: one label per sample")
        guard !trainingSamples.isEmpty else { throw FineTuningError(reason: "fine-tuning needs training images") }
        let refitting = heldOutSamples.isEmpty
        GEMM.setBLASThreads(1)
        let clock = ContinuousClock()
        let frozen = FrozenLayers(network: network, firstTrainedBlock: settings.firstTrainedBlock)
        let start = TrainableClassifier(
            backbone: TrainableEfficientNetLite0(backbone: network, trainableFrom: .block(settings.firstTrainedBlock)),
            classifier: head, labelSmoothing: settings.labelSmoothing)
        let itemFloats = frozen.outputItemShape.reduce(1, *)

        // Frozen outputs computed once: the held-out images always, the training images without augmentation.
        let preparedTotal = heldOutSamples.count + (inputs.variesByEpoch ? 0 : trainingSamples.count)
        var prepared = 0
        func frozenOutputs(_ samples: [Int], epoch: Int?, reportsProgress: Bool) throws(FineTuningError) -> [Float] {
            var values: [Float] = []
            values.reserveCapacity(samples.count * itemFloats)
            for first in stride(from: 0, to: samples.count, by: chunkSize) {
                let chunk = Array(samples[first..<min(samples.count, first + chunkSize)])
                let images = try networkInputs(inputs, chunk, epoch: epoch, threads: settings.threads)
                values += frozen.outputs(images, count: chunk.count, threads: settings.threads).scalars
                if reportsProgress {
                    prepared += chunk.count
                    events(.preparing(done: prepared, total: preparedTotal))
                }
            }
            return values
        }
        let heldOut = Tensor(
            shape: [heldOutSamples.count] + frozen.outputItemShape,
            storage: try frozenOutputs(heldOutSamples, epoch: nil, reportsProgress: true))
        let cachedTraining = inputs.variesByEpoch ? nil : try frozenOutputs(trainingSamples, epoch: 0, reportsProgress: true)

        let initial =
            refitting
            ? (logits: [Float](), loss: 0.0, accuracy: 0.0)
            : score(start, heldOut: heldOut, labels: heldOutLabels, threads: settings.threads)
        events(.started(heldOutAccuracy: initial.accuracy, heldOutImages: heldOutSamples.count))
        var best = (epoch: 0, accuracy: initial.accuracy, loss: initial.loss, classifier: start, logits: initial.logits)
        let reference = divergenceReference(startingLoss: initial.loss, classCount: start.classCount)

        let count = trainingSamples.count
        let stepsPerEpoch = (count + settings.batchSize - 1) / settings.batchSize
        var trainer = FineTuningTrainer(classifier: start, settings: settings, totalSteps: stepsPerEpoch * settings.epochs)
        var generator = SplitMix64(seed: settings.seed)
        var epochs: [FineTuningEpoch] = []
        var divergedAtEpoch: Int?
        var epochLogits: [[Float]] = []
        var elapsed = 0.0
        for epoch in 0..<settings.epochs {
            let began = clock.now
            var order = Array(0..<count)
            generator.shuffle(&order)
            var lossSum = 0.0
            for first in stride(from: 0, to: count, by: settings.batchSize) {
                let batch = Array(order[first..<min(count, first + settings.batchSize)])
                let input: Tensor<Float>
                if let cachedTraining {
                    var values: [Float] = []
                    values.reserveCapacity(batch.count * itemFloats)
                    for position in batch { values += cachedTraining[(position * itemFloats)..<((position + 1) * itemFloats)] }
                    input = Tensor(shape: [batch.count] + frozen.outputItemShape, storage: values)
                } else {
                    let images = try networkInputs(inputs, batch.map { trainingSamples[$0] }, epoch: epoch, threads: settings.threads)
                    input = frozen.outputs(images, count: batch.count, threads: settings.threads)
                }
                lossSum += trainer.train(on: input, labels: batch.map { trainingLabels[$0] }) * Double(batch.count)
            }
            // The epoch's model: the trained weights, or their mix with the start's (WiSE-FT).
            let model =
                settings.fineTunedWeight == 1
                ? trainer.classifier
                : start.interpolated(toward: trainer.classifier, weight: Float(settings.fineTunedWeight))
            let scored =
                refitting
                ? (logits: [Float](), loss: 0.0, accuracy: 0.0)
                : score(model, heldOut: heldOut, labels: heldOutLabels, threads: settings.threads)
            epochLogits.append(scored.logits)
            let seconds = duration(clock.now - began)
            elapsed += seconds
            let record = FineTuningEpoch(
                epoch: epoch + 1, loss: lossSum / Double(count), heldOutLoss: scored.loss,
                heldOutAccuracy: scored.accuracy, seconds: seconds)
            epochs.append(record)
            if isDiverging(record, reference: reference) {
                divergedAtEpoch = epoch + 1
                events(.epoch(record, imagesPerSecond: seconds > 0 ? Double(count) / seconds : 0, secondsLeft: 0))
                break
            }
            let better = scored.accuracy > best.accuracy || (scored.accuracy == best.accuracy && scored.loss < best.loss)
            // Without `requiresGain` the untrained start is no candidate: the first epoch replaces it whatever it scored.
            if better || (best.epoch == 0 && !settings.requiresGain) || refitting {
                best = (epoch + 1, scored.accuracy, scored.loss, model, scored.logits)
            }
            let secondsLeft = elapsed / Double(epoch + 1) * Double(settings.epochs - epoch - 1)
            events(.epoch(record, imagesPerSecond: seconds > 0 ? Double(count) / seconds : 0, secondsLeft: secondsLeft))
        }
        return FineTuningOutcome(
            classifier: best.classifier, epochs: epochs, bestEpoch: best.epoch,
            initialHeldOutAccuracy: initial.accuracy, heldOutLogits: best.logits, epochLogits: epochLogits,
            divergedAtEpoch: divergedAtEpoch, divergenceReference: reference)
    }

    /// Held-out logits, mean cross-entropy (no smoothing) and accuracy of `classifier`.
    static func score(
        _ classifier: TrainableClassifier, heldOut: Tensor<Float>, labels: [Int],
        threads: Int
    ) -> (logits: [Float], loss: Double, accuracy: Double) {
        var parts: [Tensor<Float>] = []
        for first in stride(from: 0, to: labels.count, by: chunkSize) {
            parts.append(classifier.logits(heldOut.batchSlice(first..<min(labels.count, first + chunkSize)), threads: threads))
        }
        let logits = Tensor.concatenatingBatches(parts)
        let loss = SoftmaxCrossEntropy.lossAndGradient(logits: logits, labels: labels, labelSmoothing: 0, normalizer: labels.count).loss
        let classes = classifier.classCount, values = logits.scalars
        var correct = 0
        for (row, label) in labels.enumerated() {
            let scores = values[(row * classes)..<((row + 1) * classes)]
            // The first largest, as `indexOfMaximum` picks everywhere else.
            if scores.firstIndex(of: scores.max()!)! - row * classes == label { correct += 1 }
        }
        return (values, loss, Double(correct) / Double(labels.count))
    }

    /// `inputs`' network inputs for `samples`, fetched in up to `threads` parts at once, in sample order.
    static func networkInputs(
        _ inputs: any FineTuningInputSource, _ samples: [Int], epoch: Int?,
        threads: Int
    ) throws(FineTuningError) -> [Float] {
        let parts = TrainableClassifier.parts(batch: samples.count, threads: threads)
        var results = [Result<[Float], FineTuningError>](repeating: .success([]), count: parts.count)
        results.withUnsafeMutableBufferPointer { slots in
            let shared = UncheckedSendable(slots)
            // Each part writes only its own slot.
            Parallel.forEach(parts.count, threads: parts.count) { part in
                let chunk = Array(samples[parts[part]])
                shared.value[part] = Result { () throws(FineTuningError) -> [Float] in try inputs.networkInputs(for: chunk, epoch: epoch) }
            }
        }
        var values: [Float] = []
        for result in results { values += try result.get() }
        let expected = samples.count * EfficientNetLite0.inputSide * EfficientNetLite0.inputSide * EfficientNetLite0Architecture.inputChannels
        guard values.count == expected else {
            throw FineTuningError(reason: "the input source gave \(values.count) values for \(samples.count) images, expected \(expected)")
        }
        return values
    }

    private static func duration(_ value: Duration) -> Double {
        Double(value.components.seconds) + Double(value.components.attoseconds) * 1e-18
    }
}
