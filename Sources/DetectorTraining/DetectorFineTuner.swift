import FineTuning
import Foundation
import TensorCore
import TrainableLayers

/// The fine-tuning loop of a detector: the backbone's top and the head (`DetectorNetwork`) train together from the
/// frozen run's head (LP-FT) on the cached stride-16 maps of the training views, with AdamW
/// (`FineTuning.Optimizer`), the head's and the backbone's own peak rates under one warm-up and cosine schedule
/// (`FineTuning.LearningRateSchedule`), and decoupled weight decay on convolution weights only
/// (`FineTuning.FineTuningTrainer.isDecayed`).
///
/// Each epoch visits the training pictures in a seeded random order, each through one of its views drawn from the
/// same generator, in batches of the schedule's size split over its threads (`DetectorNetwork.lossAndGradients`);
/// `afterEpoch` then scores the held-out pictures. The same seed and thread count give the same bits.
public enum DetectorFineTuner {
    /// Trains `network` on `examples` (per picture, its views' examples). `afterEpoch(epoch, meanLoss, seconds,
    /// network)` runs after each epoch (1-based; `seconds` is the epoch's training time) and may keep a copy.
    public static func train(
        _ network: inout DetectorNetwork, examples: [[DetectorExample]], schedule: DetectorHeadSchedule,
        settings: DetectorFineTuningSettings, inputSide: Int,
        afterEpoch: (_ epoch: Int, _ loss: Double, _ seconds: Double, _ network: DetectorNetwork) -> Void
    ) {
        precondition(!examples.isEmpty && examples.allSatisfy { !$0.isEmpty }, "DetectorFineTuner: no examples")
        GEMM.setBLASThreads(1)
        // Another stream than the head's run (`DetectorHeadTrainer`), so the two phases do not repeat one order.
        var random = SplitMix64(seed: SplitMix64.mix(schedule.seed &+ 0xf1e7))
        var optimizer = Optimizer(kind: .adamWDefaults)
        let batchSize = max(1, min(schedule.batchSize, examples.count))
        let stepsPerEpoch = (examples.count + batchSize - 1) / batchSize
        let epochs = max(1, settings.epochs)
        let totalSteps = stepsPerEpoch * epochs
        let warmup = settings.warmupFraction > 0 ? max(1, Int((settings.warmupFraction * Double(totalSteps)).rounded())) : 0
        let rates = LearningRateSchedule(warmupSteps: warmup, totalSteps: totalSteps)
        var step = 0
        for epoch in 1...epochs {
            let start = Date()
            var order = Array(examples.indices)
            random.shuffle(&order)
            var lossSum = 0.0
            for first in stride(from: 0, to: order.count, by: batchSize) {
                let batch = order[first..<min(order.count, first + batchSize)].map { picture in
                    examples[picture][random.uniform(below: examples[picture].count)]
                }
                let (loss, gradients) = network.lossAndGradients(batch: batch, inputSide: inputSide, threads: schedule.threads)
                lossSum += loss * Double(batch.count)
                let factor = rates.factor(atStep: step)
                network.update(with: gradients) { name, parameter, gradient in
                    let peak = DetectorNetwork.isBackbone(name) ? settings.backboneLearningRate : settings.headLearningRate
                    optimizer.step(
                        name, parameter: &parameter, gradient: gradient, learningRate: peak * factor,
                        weightDecay: FineTuningTrainer.isDecayed(name) ? settings.weightDecay : 0)
                }
                step += 1
            }
            afterEpoch(epoch, lossSum / Double(order.count), Date().timeIntervalSince(start), network)
        }
    }
}
