import CenterNetHead
import TrainableLayers

/// The head's output tensor `[batch, height, width, labels + 4]` read as CenterNet's three maps per picture, and
/// the loss's gradients written back in that layout.
///
/// Per cell the channels are the labels' heat-map logits, then size x, size y, offset x, offset y
/// (`CenterNetGrid`'s channel-last maps, interleaved). Splitting and joining only move values.
public enum DetectorHeadOutputs {
    /// Picture `item`'s three maps.
    public static func split(_ outputs: Tensor<Float>, item: Int, labelCount: Int) -> CenterNetOutputs<Float> {
        let (_, height, width, channels) = outputs.nhwc
        precondition(channels == labelCount + 4, "DetectorHeadOutputs: \(channels) channels for \(labelCount) labels")
        let cells = height * width
        var heat = [Float](repeating: 0, count: cells * labelCount)
        var size = [Float](repeating: 0, count: cells * 2), offset = size
        outputs.withUnsafeBufferPointer { values in
            let base = item * cells * channels
            for cell in 0..<cells {
                let at = base + cell * channels
                for label in 0..<labelCount { heat[cell * labelCount + label] = values[at + label] }
                size[2 * cell] = values[at + labelCount]
                size[2 * cell + 1] = values[at + labelCount + 1]
                offset[2 * cell] = values[at + labelCount + 2]
                offset[2 * cell + 1] = values[at + labelCount + 3]
            }
        }
        return CenterNetOutputs(heatLogits: heat, size: size, offset: offset)
    }

    /// Writes picture `item`'s three maps' gradients, each multiplied by `scale`, into `gradient`.
    public static func join(
        _ maps: CenterNetOutputs<Float>, scale: Float, item: Int, labelCount: Int,
        into gradient: inout Tensor<Float>
    ) {
        let (_, height, width, channels) = gradient.nhwc
        let cells = height * width
        gradient.withUnsafeMutableBufferPointer { values in
            let base = item * cells * channels
            for cell in 0..<cells {
                let at = base + cell * channels
                for label in 0..<labelCount { values[at + label] = scale * maps.heatLogits[cell * labelCount + label] }
                values[at + labelCount] = scale * maps.size[2 * cell]
                values[at + labelCount + 1] = scale * maps.size[2 * cell + 1]
                values[at + labelCount + 2] = scale * maps.offset[2 * cell]
                values[at + labelCount + 3] = scale * maps.offset[2 * cell + 1]
            }
        }
    }

    /// The mean CenterNet loss over the batch's pictures and its gradient on `outputs`.
    public static func loss(_ outputs: Tensor<Float>, targets: [CenterNetTargets]) -> (loss: Double, gradient: Tensor<Float>) {
        let batch = outputs.nhwc.batch
        precondition(targets.count == batch, "DetectorHeadOutputs: \(targets.count) targets for \(batch) pictures")
        var gradient = Tensor<Float>(shape: outputs.shape)
        var total = 0.0
        for item in 0..<batch {
            let labels = targets[item].grid.labelCount
            let loss = CenterNetLoss(outputs: split(outputs, item: item, labelCount: labels), targets: targets[item])
            total += loss.total
            join(loss.gradient, scale: 1 / Float(batch), item: item, labelCount: labels, into: &gradient)
        }
        return (total / Double(batch), gradient)
    }
}
