import TrainableLayers

/// The fine-tuned classifier's starting point: the linear probe (the logistic head fitted on frozen, standardised
/// features), with its standardiser folded into the dense layer.
///
/// Folding (`W' = W / scale` per feature, `b' = b − W'·mean`) makes the trainable network end in one plain dense
/// layer on the raw features, so nothing between the pooling and the logits needs its own backward pass. The
/// parametrisation barely matters to AdamW, whose steps are normalised per coordinate; the floored standardiser
/// scale (`LogisticHead.Standardizer`) keeps the folded weights of near-constant features from being huge. When the
/// model is written, the trained layer is expressed over the same standardiser again (`unfolded`), so a
/// fine-tuned model file's head reads like a frozen one's.
public enum LinearProbeHead {
    /// The dense layer `[classes, dimension]` equal to `W·((x − mean) / scale) + b` on raw features `x`.
    /// `weights` are `[classes, dimension]` row-major, `bias` `[classes]`. Sums run in Double.
    public static func folded(weights: [Float], bias: [Float], mean: [Float], scale: [Float]) -> DenseLayer<Float> {
        let dimension = mean.count, classes = bias.count
        precondition(scale.count == dimension && weights.count == classes * dimension, "LinearProbeHead: sizes differ")
        var foldedWeights = [Float](repeating: 0, count: weights.count), foldedBias = bias
        for row in 0..<classes {
            var shift = 0.0
            for column in 0..<dimension {
                let weight = Double(weights[row * dimension + column]) / Double(scale[column])
                foldedWeights[row * dimension + column] = Float(weight)
                shift += weight * Double(mean[column])
            }
            foldedBias[row] = Float(Double(bias[row]) - shift)
        }
        return DenseLayer(
            weights: Tensor(shape: [classes, dimension], storage: foldedWeights),
            bias: Tensor(shape: [classes], storage: foldedBias))
    }

    /// The inverse of `folded`: weights and bias over the standardised features (`W = W'·scale`,
    /// `b = b' + W'·mean`) that compute what `layer` computes on raw ones.
    public static func unfolded(_ layer: DenseLayer<Float>, mean: [Float], scale: [Float]) -> (weights: [Float], bias: [Float]) {
        let dimension = mean.count, classes = layer.outputCount
        precondition(layer.inputCount == dimension && scale.count == dimension, "LinearProbeHead: sizes differ")
        let source = layer.weights.scalars
        var weights = [Float](repeating: 0, count: source.count), bias = layer.bias.scalars
        for row in 0..<classes {
            var shift = 0.0
            for column in 0..<dimension {
                let weight = Double(source[row * dimension + column])
                weights[row * dimension + column] = Float(weight * Double(scale[column]))
                shift += weight * Double(mean[column])
            }
            bias[row] = Float(Double(bias[row]) + shift)
        }
        return (weights, bias)
    }
}
