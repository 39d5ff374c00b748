import Models
import TensorCore
import TrainableLayers

/// The layers below the trained top: the stem and blocks `0..<firstTrainedBlock` of the pretrained network, run on
/// the fast inference path (`EfficientNetLite0.blockInputs`).
public struct FrozenLayers: Sendable {
    /// The pretrained network.
    public let network: EfficientNetLite0
    /// The first block that trains; the frozen layers compute its input.
    public let firstTrainedBlock: Int

    /// The layers below block `firstTrainedBlock` of `network`.
    public init(network: EfficientNetLite0, firstTrainedBlock: Int) {
        self.network = network
        self.firstTrainedBlock = firstTrainedBlock
    }

    /// The shape of one output item, `[side, side, channels]`.
    public var outputItemShape: [Int] {
        let shape = EfficientNetLite0.blockInputShape(firstTrainedBlock)
        return [shape.side, shape.side, shape.channels]
    }

    /// images `[count, 224, 224, 3]` → `[count] + outputItemShape`, the images spread over `threads` threads
    /// (each image's arithmetic is the same whichever thread runs it).
    public func outputs(_ images: [Float], count: Int, threads: Int) -> Tensor<Float> {
        let imageFloats = images.count / max(1, count)
        let parts = TrainableClassifier.parts(batch: count, threads: threads)
        var results = [[Float]](repeating: [], count: parts.count)
        results.withUnsafeMutableBufferPointer { slots in
            let shared = UncheckedSendable(slots)
            // Each part writes only its own slot.
            Parallel.forEach(parts.count, threads: parts.count) { part in
                let range = parts[part]
                let slice = Array(images[(range.lowerBound * imageFloats)..<(range.upperBound * imageFloats)])
                shared.value[part] = network.blockInputs(slice, batch: range.count, block: firstTrainedBlock)
            }
        }
        return Tensor(shape: [count] + outputItemShape, storage: results.flatMap { $0 })
    }
}
