import ImageCodecs
import Layers
import ModelFiles
import Models

/// The classifier as a format-neutral list of operations, which each exporter translates into its own nodes.
///
/// Tensors are NCHW here (both ONNX and Core ML are channel-first) and every convolution carries its weights in
/// OIHW, `[outputChannels, inputChannels / groups, kernelSize, kernelSize]`, and its padding resolved for the
/// 224-px input, so TensorFlow SAME's extra pixel on the bottom/right of stride-2 layers is explicit.
/// `backboneSteps` resolves the same walk at any input side; the detector's plan (`DetectorExportPlan`) uses it.
struct ExportPlan {
    /// One convolution with bias, optionally followed by ReLU6.
    struct Convolution {
        var name: String
        var inputChannels: Int
        var outputChannels: Int
        /// 1 for dense convolutions, `inputChannels` for depthwise ones.
        var groups: Int
        var kernelSize: Int
        var stride: Int
        var padding: Padding2D
        /// `[outputChannels, inputChannels / groups, kernelSize, kernelSize]`.
        var weightsOIHW: [Float]
        /// `[outputChannels]`.
        var bias: [Float]
        var relu6: Bool
    }

    /// One step of the backbone; tensor names are plan-local and the exporters may reuse them as they are.
    enum Step {
        /// `output = relu6?(convolution(input))`.
        case convolution(Convolution, input: String, output: String)
        /// `output = first + second` (the inverted-residual skip).
        case add(first: String, second: String, output: String, name: String)
    }

    /// Name the plan gives the normalised network input, `[N, 3, side, side]` (224 for the classifier).
    static let normalizedInput = "normalized"

    /// Stem, blocks and head convolution, in order; the last step's output is the `[N, 1280, 7, 7]` map whose
    /// global average is the feature vector.
    var steps: [Step] = []
    /// Name of the head convolution's output.
    var featureMap = ""
    /// The standardisation folded into the linear layer: `[classes, 1280]` row-major.
    var classifierWeights: [Float] = []
    /// `[classes]`.
    var classifierBias: [Float] = []
    /// The logits are divided by this before the softmax (the model file's calibration temperature).
    var temperature: Double = 1
    /// The model's confidence threshold, if it has one (metadata only).
    var confidenceThreshold: Double?
    /// Class names in output order.
    var labels: [String] = []
    /// Per-channel `mean` and `std` applied to 0…255 RGB pixels.
    var mean: [Float] = []
    var standardDeviation: [Float] = []

    /// Checks that `model` fits `network` and resolves every layer; errors name `path`, the output file.
    init(model: ModelFile, network: EfficientNetLite0, path: String) throws(ExportError) {
        let fail = { (reason: String) in ExportError(path: path, reason: reason) }
        let head = model.head
        let featureCount = EfficientNetLite0.featureCount
        let classCount = head.classCount
        guard classCount >= 1 else { throw fail("the model has no classes") }
        guard model.labels.count == classCount else {
            throw fail("the model has \(model.labels.count) labels but its head has \(classCount) outputs")
        }
        guard Set(model.labels).count == model.labels.count else { throw fail("the model's labels are not unique") }
        guard head.featureDimension == featureCount, head.featureScale.count == featureCount,
            head.weights.count == classCount * featureCount
        else {
            throw fail(
                "the head expects \(head.featureDimension) features with \(head.weights.count) weights; "
                    + "the backbone gives \(featureCount)")
        }
        let preprocessing = model.preprocessing
        if let field = preprocessing.unsupportedField(backboneInputSide: EfficientNetLite0.inputSide) {
            throw fail("the model's preprocessing \(field)")
        }
        guard model.temperature.isFinite, model.temperature > 0, Float(model.temperature).isNormal else {
            throw fail("the model's temperature \(model.temperature) is not a positive number")
        }
        temperature = model.temperature
        confidenceThreshold = model.confidenceThreshold
        labels = model.labels
        mean = preprocessing.mean
        standardDeviation = preprocessing.std
        (classifierWeights, classifierBias) = try Self.foldStandardization(head, featureCount: featureCount, fail: fail)
        walk(network)
    }

    /// `W·((f − mean) / scale) + b = (W / scale)·f + (b − W·(mean / scale))`, computed in double precision so
    /// each folded weight and bias carries a single float32 rounding (the bias sums 1280 terms).
    private static func foldStandardization(
        _ head: HeadTensors, featureCount: Int, fail: (String) -> ExportError
    ) throws(ExportError) -> ([Float], [Float]) {
        var weights = [Float](repeating: 0, count: head.weights.count)
        var bias = [Float](repeating: 0, count: head.classCount)
        for feature in 0..<featureCount {
            let scale = Double(head.featureScale[feature])
            guard scale.isFinite, scale != 0, head.featureMean[feature].isFinite else {
                throw fail("feature \(feature) has scale \(scale) and mean \(head.featureMean[feature]); both must be finite, the scale non-zero")
            }
        }
        for row in 0..<head.classCount {
            var offset = Double(head.bias[row])
            for feature in 0..<featureCount {
                let weight = Double(head.weights[row * featureCount + feature]) / Double(head.featureScale[feature])
                weights[row * featureCount + feature] = Float(weight)
                offset -= weight * Double(head.featureMean[feature])
            }
            bias[row] = Float(offset)
        }
        guard weights.allSatisfy(\.isFinite), bias.allSatisfy(\.isFinite) else {
            throw fail("the head's weights are not finite once standardisation is folded in")
        }
        return (weights, bias)
    }

    /// Translates the network's layers for the classifier's 224-px input, through the head convolution.
    private mutating func walk(_ network: EfficientNetLite0) {
        steps = Self.backboneSteps(network, inputSide: EfficientNetLite0.inputSide, includesHead: true).steps
        featureMap = "head"
    }

    /// The backbone's steps from `normalizedInput`, `[N, 3, inputSide, inputSide]`, tracking the spatial size to
    /// resolve TF SAME padding at that side: the stem, the blocks and, with `includesHead`, the 1×1 head
    /// convolution (output `head`). `blockOutputs[i]` names block i's output tensor, so a detector can read the
    /// stride-16 map (the input of block `EfficientNetLite0.firstStride32Block`) and the last block's.
    static func backboneSteps(_ network: EfficientNetLite0, inputSide: Int, includesHead: Bool)
        -> (steps: [Step], blockOutputs: [String])
    {
        var steps: [Step] = [], blockOutputs: [String] = []
        var side = inputSide
        var current = Self.normalizedInput

        let stem = network.stem
        steps.append(
            .convolution(
                Convolution(
                    name: "stem", inputChannels: stem.inputChannels, outputChannels: stem.outputChannels, groups: 1,
                    kernelSize: stem.kernelSize, stride: stem.stride,
                    padding: stem.padding.resolve(inputHeight: side, inputWidth: side, kernelSize: stem.kernelSize, stride: stem.stride),
                    weightsOIHW: Self.oihw(
                        hwio: stem.weights, kernelSize: stem.kernelSize, inputChannels: stem.inputChannels,
                        outputChannels: stem.outputChannels),
                    bias: stem.bias, relu6: stem.activation == .relu6), input: current, output: "stem"))
        current = "stem"
        side = stem.outputSize(inputHeight: side, inputWidth: side).height

        for (index, block) in network.blocks.enumerated() {
            let prefix = "blocks.\(index)."
            let blockInput = current
            if let expand = block.expand {
                steps.append(.convolution(pointwise(expand, name: prefix + "expand"), input: current, output: prefix + "expand"))
                current = prefix + "expand"
            }
            let depthwise = block.depthwise
            steps.append(
                .convolution(
                    Convolution(
                        name: prefix + "depthwise", inputChannels: depthwise.channels, outputChannels: depthwise.channels,
                        groups: depthwise.channels, kernelSize: depthwise.kernelSize, stride: depthwise.stride,
                        padding: depthwise.padding.resolve(
                            inputHeight: side, inputWidth: side, kernelSize: depthwise.kernelSize,
                            stride: depthwise.stride),
                        weightsOIHW: Self.oihw(hwc: depthwise.weights, kernelSize: depthwise.kernelSize, channels: depthwise.channels),
                        bias: depthwise.bias, relu6: depthwise.activation == .relu6), input: current, output: prefix + "depthwise"))
            current = prefix + "depthwise"
            side = block.outputSize(inputHeight: side, inputWidth: side).height
            steps.append(.convolution(pointwise(block.project, name: prefix + "project"), input: current, output: prefix + "project"))
            current = prefix + "project"
            if block.specification.hasResidual {
                steps.append(.add(first: current, second: blockInput, output: prefix + "residual", name: prefix + "residual"))
                current = prefix + "residual"
            }
            blockOutputs.append(current)
        }
        if includesHead {
            steps.append(.convolution(pointwise(network.head, name: "head"), input: current, output: "head"))
        }
        return (steps, blockOutputs)
    }

    private static func pointwise(_ layer: PointwiseConvolution, name: String) -> Convolution {
        Convolution(
            name: name, inputChannels: layer.inputChannels, outputChannels: layer.outputChannels, groups: 1,
            kernelSize: 1, stride: 1, padding: .zero,
            weightsOIHW: Self.transposed(layer.weights, rows: layer.inputChannels, columns: layer.outputChannels),
            bias: layer.bias, relu6: layer.activation == .relu6)
    }

    /// HWIO `[k, k, I, O]` → OIHW `[O, I, k, k]`.
    static func oihw(hwio: [Float], kernelSize k: Int, inputChannels: Int, outputChannels: Int) -> [Float] {
        var result = [Float](repeating: 0, count: hwio.count)
        for y in 0..<k {
            for x in 0..<k {
                for i in 0..<inputChannels {
                    for o in 0..<outputChannels {
                        result[((o * inputChannels + i) * k + y) * k + x] = hwio[((y * k + x) * inputChannels + i) * outputChannels + o]
                    }
                }
            }
        }
        return result
    }

    /// Depthwise HWC `[k, k, C]` → `[C, 1, k, k]`.
    static func oihw(hwc: [Float], kernelSize k: Int, channels: Int) -> [Float] {
        var result = [Float](repeating: 0, count: hwc.count)
        for tap in 0..<(k * k) {
            for c in 0..<channels { result[c * k * k + tap] = hwc[tap * channels + c] }
        }
        return result
    }

    /// `[rows, columns]` → `[columns, rows]`; IO pointwise weights become OI (= OIHW with 1×1 kernels).
    static func transposed(_ matrix: [Float], rows: Int, columns: Int) -> [Float] {
        var result = [Float](repeating: 0, count: matrix.count)
        for r in 0..<rows {
            for c in 0..<columns { result[c * rows + r] = matrix[r * columns + c] }
        }
        return result
    }
}
