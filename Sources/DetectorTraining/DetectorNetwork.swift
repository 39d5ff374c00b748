import CenterNetHead
import TensorCore
import TrainableLayers

/// What `--fine-tune` trains: the backbone's top (`DetectorBackboneTop`, the stride-16 map to the stride-32 map)
/// and the head over both maps.
///
/// ```text
/// fine [N, Hf, Wf, 112] ─┬────────────────────────────────────── head ─ outputs [N, Hf, Wf, labels + 4]
///                        └─ top (blocks 11–15) ─ coarse [N, Hc, Wc, 320] ─┘
/// ```
/// The loss's gradient flows back through the head into the coarse map (`DetectorHeadNetwork.backward(…,
/// computesCoarseGradient: true)`) and on through the blocks; the fine map comes from the frozen layers (cached).
///
/// **Threads split the batch** as `DetectorHeadTrainer` splits it: `threads` contiguous parts, each part's forward
/// and backward on its own thread, the parts' gradients added in part order, so the same thread count gives the
/// same bits.
public struct DetectorNetwork: Sendable {
    /// The trainable blocks after the stride-16 tap.
    public var top: DetectorBackboneTop
    /// The head.
    public var head: DetectorHeadNetwork<Float>

    /// A network from its parts (the fine-tuning's start: the pretrained top and the frozen run's head).
    public init(top: DetectorBackboneTop, head: DetectorHeadNetwork<Float>) {
        self.top = top
        self.head = head
    }

    /// Every parameter's gradient.
    public struct Gradients: Sendable, Equatable {
        /// The blocks'.
        public var top: DetectorBackboneTop.Gradients
        /// The head's.
        public var head: DetectorHeadNetwork<Float>.Gradients

        /// Adds another part of a batch's gradients.
        public static func += (left: inout Self, right: Self) {
            left.top += right.top
            left.head += right.head
        }
    }

    /// Whether a parameter name (as `update` passes it) is the backbone's, which gets the backbone's rate.
    public static func isBackbone(_ name: String) -> Bool { name.hasPrefix("blocks.") }

    /// Calls `rule` for each parameter: the blocks' as `blocks.N.…`, the head's under `DetectorHeadNetwork`'s names.
    public mutating func update(with gradients: Gradients, _ rule: ParameterUpdate<Float>) {
        top.update(with: gradients.top, rule)
        head.update(with: gradients.head, rule)
    }

    /// fine `[N, Hf, Wf, 112]` → the head's outputs `[N, Hf, Wf, labels + 4]` (inference: no caches).
    public func outputs(fine: Tensor<Float>) -> Tensor<Float> {
        let coarse = top.forward(fine, mode: .inference).coarse
        return head.forward(fine: fine, coarse: coarse, mode: .inference).output
    }

    /// The outputs for packed maps (only their fine part is read: the top makes the coarse one).
    public func outputs(for maps: [[Float]], inputSide: Int) -> Tensor<Float> {
        outputs(fine: DetectorBatch.tensors(maps, inputSide: inputSide).fine)
    }

    /// The mean CenterNet loss of `batch` and every parameter's gradient, the batch split into `threads` parts.
    /// BLAS threading is the caller's choice: keep it at one thread when `threads` > 1.
    public func lossAndGradients(batch: [DetectorExample], inputSide: Int, threads: Int) -> (loss: Double, gradients: Gradients) {
        precondition(!batch.isEmpty, "DetectorNetwork: an empty batch")
        let parts = Parallel.shares(of: batch.count, parts: max(1, min(threads, batch.count)))
        var results = [(loss: Double, gradients: Gradients)?](repeating: nil, count: parts.count)
        results.withUnsafeMutableBufferPointer { buffer in
            let shared = UncheckedSendable(buffer)
            // Each part writes only its own slot.
            Parallel.forEach(parts.count, threads: parts.count) { index in
                let part = Array(batch[parts[index]])
                let fine = DetectorBatch.tensors(part.map(\.maps), inputSide: inputSide).fine
                shared.value[index] = partLossAndGradients(
                    fine: fine, targets: part.map(\.targets),
                    share: Float(part.count) / Float(batch.count))
            }
        }
        var total = results[0]!
        for result in results.dropFirst() {
            total.loss += result!.loss
            total.gradients += result!.gradients
        }
        return total
    }

    /// One part's loss and gradients, weighted by its `share` of the batch so the parts add up to the batch's mean.
    func partLossAndGradients(fine: Tensor<Float>, targets: [CenterNetTargets], share: Float) -> (loss: Double, gradients: Gradients) {
        let (coarse, topCache) = top.forward(fine, mode: .training)
        let (outputs, headCache) = head.forward(fine: fine, coarse: coarse, mode: .training)
        var (loss, gradient) = DetectorHeadOutputs.loss(outputs, targets: targets)
        gradient.withUnsafeMutableBufferPointer { values in for index in values.indices { values[index] *= share } }
        loss *= Double(share)
        let headStep = head.backward(gradient, cache: headCache!, computesCoarseGradient: true)
        return (loss, Gradients(top: top.backward(headStep.coarse!, cache: topCache!), head: headStep.gradients))
    }
}
