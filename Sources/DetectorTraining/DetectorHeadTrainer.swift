import CenterNetHead
import FineTuning
import Foundation
import TensorCore
import TrainableLayers

/// One training example: a view's packed maps and the CenterNet targets of the objects in it.
public struct DetectorExample: Sendable {
    /// Fine then coarse map (`DetectionFeatureExtractor`'s layout).
    public var maps: [Float]
    /// What the head should output for this view.
    public var targets: CenterNetTargets

    /// An example from its parts.
    public init(maps: [Float], targets: CenterNetTargets) {
        self.maps = maps
        self.targets = targets
    }
}

/// How the head trains.
public struct DetectorHeadSchedule: Sendable, Equatable, Codable {
    /// Passes over the training pictures (each pass sees every picture once, through one of its views).
    public var epochs: Int
    /// Pictures per step.
    public var batchSize: Int
    /// Adam's peak learning rate; it falls along a half cosine to a twentieth of it over the run.
    public var learningRate: Double
    /// Seeds the head's start, the order of pictures and the choice of views.
    public var seed: UInt64
    /// Threads the batch is split over; the same count gives the same bits.
    public var threads: Int

    /// A schedule from its parts.
    public init(epochs: Int, batchSize: Int, learningRate: Double, seed: UInt64, threads: Int) {
        (self.epochs, self.batchSize, self.learningRate, self.seed, self.threads) = (epochs, batchSize, learningRate, seed, threads)
    }

    /// The rate at step `step` of `total` (0-based): `η · (f + (1 − f)·(1 + cos(π·step/total))/2)`, f = 1/20.
    public func learningRate(step: Int, of total: Int) -> Double {
        let floor = 0.05
        let progress = total <= 1 ? 0 : Double(step) / Double(total - 1)
        return learningRate * (floor + (1 - floor) * (1 + cos(Double.pi * progress)) / 2)
    }
}

/// The training loop of the head on cached maps: Adam (`FineTuning.Optimizer`, AdamW without decay) on the mean
/// CenterNet loss of each batch, each epoch ending with `afterEpoch` (the caller scores the held-out pictures).
///
/// Determinism: the generator is seeded; each batch is split into `threads` contiguous parts, each part's forward
/// and backward run on its own thread with BLAS single-threaded, and the parts' gradients are added in part order,
/// so the same seed and thread count give the same bits whatever the scheduling.
public enum DetectorHeadTrainer {
    /// Trains `head` on `examples` (per picture, its views' examples; the first is the whole picture). Returns the
    /// mean loss of each epoch; `afterEpoch(epoch, meanLoss, head)` runs after each and may keep a copy.
    public static func train(
        _ head: inout DetectorHeadNetwork<Float>, examples: [[DetectorExample]], schedule: DetectorHeadSchedule,
        inputSide: Int, afterEpoch: (_ epoch: Int, _ loss: Double, _ head: DetectorHeadNetwork<Float>) -> Void
    ) {
        precondition(!examples.isEmpty && examples.allSatisfy { !$0.isEmpty }, "DetectorHeadTrainer: no examples")
        GEMM.setBLASThreads(1)
        var random = SplitMix64(seed: SplitMix64.mix(schedule.seed &+ 0x5eed))
        var optimizer = Optimizer(kind: .adamWDefaults)
        let batchSize = max(1, min(schedule.batchSize, examples.count))
        let stepsPerEpoch = (examples.count + batchSize - 1) / batchSize
        let totalSteps = stepsPerEpoch * max(1, schedule.epochs)
        var step = 0
        for epoch in 1...max(1, schedule.epochs) {
            var order = Array(examples.indices)
            random.shuffle(&order)
            var lossSum = 0.0
            for first in stride(from: 0, to: order.count, by: batchSize) {
                let batch = order[first..<min(order.count, first + batchSize)].map { picture in
                    examples[picture][random.uniform(below: examples[picture].count)]
                }
                let (loss, gradients) = lossAndGradients(head, batch: batch, inputSide: inputSide, threads: schedule.threads)
                lossSum += loss * Double(batch.count)
                let rate = schedule.learningRate(step: step, of: totalSteps)
                head.update(with: gradients) { name, parameter, gradient in
                    optimizer.step(name, parameter: &parameter, gradient: gradient, learningRate: rate, weightDecay: 0)
                }
                step += 1
            }
            afterEpoch(epoch, lossSum / Double(order.count), head)
        }
    }

    /// The batch's mean loss and its gradients, the batch split into `threads` contiguous parts.
    public static func lossAndGradients(
        _ head: DetectorHeadNetwork<Float>, batch: [DetectorExample], inputSide: Int,
        threads: Int
    ) -> (loss: Double, gradients: DetectorHeadNetwork<Float>.Gradients) {
        let parts = Parallel.shares(of: batch.count, parts: max(1, min(threads, batch.count)))
        var results = [(loss: Double, gradients: DetectorHeadNetwork<Float>.Gradients)?](repeating: nil, count: parts.count)
        results.withUnsafeMutableBufferPointer { buffer in
            let shared = UncheckedSendable(buffer)
            Parallel.forEach(parts.count, threads: parts.count) { index in
                let part = Array(batch[parts[index]])
                let (fine, coarse) = DetectorBatch.tensors(part.map(\.maps), inputSide: inputSide)
                let (outputs, cache) = head.forward(fine: fine, coarse: coarse, mode: .training)
                var (loss, gradient) = DetectorHeadOutputs.loss(outputs, targets: part.map(\.targets))
                // Each part's mean is weighted by its share of the batch, so the parts add up to the batch's mean.
                let share = Float(part.count) / Float(batch.count)
                gradient.withUnsafeMutableBufferPointer { values in for index in values.indices { values[index] *= share } }
                loss *= Double(share)
                shared.value[index] = (loss, head.backward(gradient, cache: cache!))
            }
        }
        var total = results[0]!
        for result in results.dropFirst() {
            total.loss += result!.loss
            total.gradients += result!.gradients
        }
        return total
    }
}
