import FileFormats
import Layers

/// Marks `FileError`s about pretrained backbone weights.
public enum BackboneWeightsErrorDomain {}

/// Pretrained backbone weights that cannot be used: the weights file and a one-line reason that names every
/// missing, unused and wrong-shape tensor.
public typealias BackboneWeightsError = FileError<BackboneWeightsErrorDomain>

/// The tensor names and shapes EfficientNet-Lite0's safetensors file must hold: the PyTorch port's state-dict
/// names (as written by `scripts/setup/convert-backbone.py`), OIHW convolution weights, batch-norm
/// `weight`/`bias`/`running_mean`/`running_var`, and the `_fc` classifier.
public enum BackboneWeights {
    /// The four batch-norm tensors of a `[channels]` normalisation named `prefix`.
    static func batchNormShapes(_ prefix: String, channels: Int) -> [(String, [Int])] {
        ["weight", "bias", "running_mean", "running_var"].map { ("\(prefix).\($0)", [channels]) }
    }

    /// Every expected tensor with its shape.
    public static let expectedShapes: [String: [Int]] = {
        typealias Architecture = EfficientNetLite0Architecture
        var shapes: [(String, [Int])] = []
        let stem = Architecture.stemKernelSize
        shapes.append(("_conv_stem.weight", [Architecture.stemChannels, Architecture.inputChannels, stem, stem]))
        shapes += batchNormShapes("_bn0", channels: Architecture.stemChannels)
        for block in Architecture.blocks {
            let prefix = "_blocks.\(block.index)."
            if block.hasExpansion {
                shapes.append((prefix + "_expand_conv.weight", [block.expandedChannels, block.inputChannels, 1, 1]))
                shapes += batchNormShapes(prefix + "_bn0", channels: block.expandedChannels)
            }
            shapes.append((prefix + "_depthwise_conv.weight", [block.expandedChannels, 1, block.kernelSize, block.kernelSize]))
            shapes += batchNormShapes(prefix + "_bn1", channels: block.expandedChannels)
            shapes.append((prefix + "_project_conv.weight", [block.outputChannels, block.expandedChannels, 1, 1]))
            shapes += batchNormShapes(prefix + "_bn2", channels: block.outputChannels)
        }
        let last = Architecture.blocks.last!.outputChannels
        shapes.append(("_conv_head.weight", [Architecture.headChannels, last, 1, 1]))
        shapes += batchNormShapes("_bn1", channels: Architecture.headChannels)
        shapes.append(("_fc.weight", [Architecture.classCount, Architecture.headChannels]))
        shapes.append(("_fc.bias", [Architecture.classCount]))
        return Dictionary(uniqueKeysWithValues: shapes)
    }()

    /// Checks that `file` holds exactly the expected tensors with the expected shapes; the error lists every
    /// missing, unused and wrong-shape tensor by name (`TensorMismatch`, the one strict check).
    public static func validate(_ file: SafetensorsFile, path: String) throws(BackboneWeightsError) {
        if let mismatch = TensorMismatch(tensors: file.tensors, expected: expectedShapes) {
            throw BackboneWeightsError(path: path, reason: "not EfficientNet-Lite0 weights: " + mismatch.summary())
        }
    }

    /// A convolution's OIHW weights with the batch norm `batchNorm` folded in. Call only after `validate`.
    static func folded(_ file: SafetensorsFile, weights: String, batchNorm: String) -> (weights: [Float], bias: [Float]) {
        let tensor = file.tensors[weights]!
        func values(_ suffix: String) -> [Float] { file.tensors["\(batchNorm).\(suffix)"]!.values }
        return BatchNormFolding.fold(
            weights: tensor.values, outputChannels: tensor.shape[0],
            scale: values("weight"), shift: values("bias"),
            mean: values("running_mean"), variance: values("running_var"),
            epsilon: EfficientNetLite0Architecture.batchNormEpsilon)
    }
}
