import FileFormats
import Models
import TensorCore

extension TrainableEfficientNetLite0 {
    /// The backbone tensors of a model file (the PyTorch port's names, OIHW weights, unfolded batch norm) with this
    /// network's trained layers written over `base`, so every consumer that builds the inference network from a
    /// model file's tensors (`EfficientNetLite0(weights:path:)`) computes this network's features.
    ///
    /// Each trained convolution is stored with its scale multiplied in (`weight[o, …] = W[…, o]·scale[o]`) and its
    /// batch norm made an identity carrier of the trained bias: `weight` 1, `bias` the trained bias,
    /// `running_mean` 0, `running_var` 1 − ε. Folding that at load (`scale / √(var + ε)` = 1, `bias − mean·1`)
    /// gives back the trained values within float rounding. Tensors of layers below the trained part stay
    /// byte-identical to `base`'s.
    public func backboneTensors(over base: [String: SafetensorsFile.Tensor]) -> [String: SafetensorsFile.Tensor] {
        var tensors = base
        func store(_ weights: SafetensorsFile.Tensor, as name: String, batchNorm: String, bias: Tensor<Float>) {
            Self.store(weights, as: name, batchNorm: batchNorm, bias: bias, into: &tensors)
        }
        if let stem, let stemScaleBias {
            store(
                Self.oihw(stem: stem.weights, scale: stemScaleBias.scale), as: "_conv_stem.weight", batchNorm: "_bn0",
                bias: stemScaleBias.bias)
        }
        tensors = Self.blockTensors(blocks, over: tensors)
        store(
            Self.oihw(pointwise: head.weights, scale: headScaleBias.scale), as: "_conv_head.weight", batchNorm: "_bn1",
            bias: headScaleBias.bias)
        return tensors
    }

    /// `blocks`' tensors written over `base` as `backboneTensors(over:)` writes them (`_blocks.N.*`, each
    /// convolution with its scale multiplied in and an identity batch norm carrying its bias), every other tensor
    /// left as it is: for a network whose trained part is some blocks alone (the detector's, whose head reads the
    /// last block's output, not the 1×1 head convolution).
    public static func blockTensors(
        _ blocks: [InvertedResidualBlock<Float>],
        over base: [String: SafetensorsFile.Tensor]
    ) -> [String: SafetensorsFile.Tensor] {
        var tensors = base
        for block in blocks {
            let prefix = "_blocks.\(block.specification.index)."
            if let expand = block.expand, let expandScaleBias = block.expandScaleBias {
                store(
                    oihw(pointwise: expand.weights, scale: expandScaleBias.scale), as: prefix + "_expand_conv.weight",
                    batchNorm: prefix + "_bn0", bias: expandScaleBias.bias, into: &tensors)
            }
            store(
                oihw(depthwise: block.depthwise.weights, scale: block.depthwiseScaleBias.scale),
                as: prefix + "_depthwise_conv.weight", batchNorm: prefix + "_bn1", bias: block.depthwiseScaleBias.bias, into: &tensors)
            store(
                oihw(pointwise: block.project.weights, scale: block.projectScaleBias.scale),
                as: prefix + "_project_conv.weight", batchNorm: prefix + "_bn2", bias: block.projectScaleBias.bias, into: &tensors)
        }
        return tensors
    }

    /// A trained convolution's weights under `name` and its batch norm `batchNorm` as the identity carrying `bias`.
    private static func store(
        _ weights: SafetensorsFile.Tensor, as name: String, batchNorm: String, bias: Tensor<Float>,
        into tensors: inout [String: SafetensorsFile.Tensor]
    ) {
        tensors[name] = weights
        let channels = bias.count
        let variance = 1 - EfficientNetLite0Architecture.batchNormEpsilon
        tensors[batchNorm + ".weight"] = .init(shape: [channels], values: [Float](repeating: 1, count: channels))
        tensors[batchNorm + ".bias"] = .init(shape: [channels], values: bias.scalars)
        tensors[batchNorm + ".running_mean"] = .init(shape: [channels], values: [Float](repeating: 0, count: channels))
        tensors[batchNorm + ".running_var"] = .init(shape: [channels], values: [Float](repeating: variance, count: channels))
    }

    /// The names of the tensors `backboneTensors(over:)` writes, sorted: what a model file says was trained.
    public var trainedTensorNames: [String] {
        backboneTensors(over: [:]).keys.sorted()
    }

    /// IO `[in, out]` times `scale[out]` → OIHW `[out, in, 1, 1]`.
    private static func oihw(pointwise weights: Tensor<Float>, scale: Tensor<Float>) -> SafetensorsFile.Tensor {
        let inputs = weights.shape[0], outputs = weights.shape[1]
        let source = weights.scalars, scales = scale.scalars
        var values = [Float](repeating: 0, count: inputs * outputs)
        for output in 0..<outputs {
            for input in 0..<inputs { values[output * inputs + input] = source[input * outputs + output] * scales[output] }
        }
        return .init(shape: [outputs, inputs, 1, 1], values: values)
    }

    /// HWC `[k, k, channels]` times `scale[channel]` → OIHW `[channels, 1, k, k]`.
    private static func oihw(depthwise weights: Tensor<Float>, scale: Tensor<Float>) -> SafetensorsFile.Tensor {
        let side = weights.shape[0], channels = weights.shape[2]
        let source = weights.scalars, scales = scale.scalars
        var values = [Float](repeating: 0, count: side * side * channels)
        for channel in 0..<channels {
            for tap in 0..<(side * side) { values[channel * side * side + tap] = source[tap * channels + channel] * scales[channel] }
        }
        return .init(shape: [channels, 1, side, side], values: values)
    }

    /// HWIO `[k, k, in, out]` times `scale[out]` → OIHW `[out, in, k, k]`.
    private static func oihw(stem weights: Tensor<Float>, scale: Tensor<Float>) -> SafetensorsFile.Tensor {
        let side = weights.shape[0], inputs = weights.shape[2], outputs = weights.shape[3]
        let source = weights.scalars, scales = scale.scalars
        var values = [Float](repeating: 0, count: side * side * inputs * outputs)
        for output in 0..<outputs {
            for input in 0..<inputs {
                for tap in 0..<(side * side) {
                    values[(output * inputs + input) * side * side + tap] = source[(tap * inputs + input) * outputs + output] * scales[output]
                }
            }
        }
        return .init(shape: [outputs, inputs, side, side], values: values)
    }
}
