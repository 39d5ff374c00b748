import FileFormats
import Layers
import ModelFiles
import Models

/// A trained detector as a format-neutral list (NCHW, OIHW weights), which each exporter translates into its own
/// nodes: EfficientNet-Lite0's walk at the model's input side up to its two maps, then the CenterNet head of
/// `DetectorTraining.DetectorHeadNetwork`, laid out from the model file's `detector.*` tensors:
///
/// ```text
/// fine   [N, 112, S/16, S/16] ─ fineProjection (1×1, bias mergeBias) ─────────────┐
/// coarse [N, 320, S/32, S/32] ─ coarseProjection (1×1, no bias) ─ nearest ×2 ─────┴─ + , ReLU6
///     ─ mixing (3×3, pad 1, bias mixingBias), ReLU6 ─ output (1×1, bias outputBias) = [N, labels + 4, S/16, S/16]
/// ```
/// The output's channels are the labels' heat-map logits, then size x, size y, offset x, offset y, in cells. The
/// merge bias rides on the fine projection (Workbench adds it after the sum; the result differs by rounding only),
/// so the head is plain convolutions, one `Add`, one upsampling and clips. The decoding after it is each
/// exporter's (`ONNXExporter.export(detector:network:to:)` states the contract).
struct DetectorExportPlan {
    /// Stem and blocks at `inputSide`, without the classifier's 1×1 head convolution.
    var backbone: [ExportPlan.Step] = []
    /// The stride-16 map: the input of block `EfficientNetLite0.firstStride32Block`, `[N, 112, fineSide, fineSide]`.
    var fineMap = ""
    /// The last block's output, `[N, 320, coarseSide, coarseSide]`.
    var coarseMap = ""
    /// Side of the square network input (a multiple of 32, so `fineSide == 2 · coarseSide`).
    var inputSide: Int
    /// Cells a side of the output grid (stride 16).
    var fineSide: Int
    /// Cells a side of the stride-32 map.
    var coarseSide: Int
    /// `fineMap` → the head's width, with the merge bias.
    var fineProjection: ExportPlan.Convolution
    /// `coarseMap` → the head's width, no bias (before the upsampling).
    var coarseProjection: ExportPlan.Convolution
    /// The 3×3 mixing convolution with its bias and ReLU6.
    var mixing: ExportPlan.Convolution
    /// The 1×1 output convolution with its bias: `labels + 4` channels.
    var output: ExportPlan.Convolution
    /// Labels in heat-map channel order.
    var labels: [String]
    /// The model's stored score threshold (metadata; the selection is the consumer's, see `ONNXExporter`).
    var scoreThreshold: Double
    /// Per-channel `mean` and `std` applied to 0…255 RGB pixels.
    var mean: [Float]
    var standardDeviation: [Float]

    /// Output grid stride in input pixels.
    static let stride = 16

    /// Checks that `model` fits `network` and resolves every layer at the model's input side; errors name `path`,
    /// the output file.
    init(model: DetectorModelFile, network: EfficientNetLite0, path: String) throws(ExportError) {
        let fail = { (reason: String) in ExportError(path: path, reason: reason) }
        let side = model.inputSide
        guard DetectorInputSide.isValid(side) else {
            throw fail("the detector's input side \(side) is not \(DetectorInputSide.requirement)")
        }
        guard !model.labels.isEmpty, Set(model.labels).count == model.labels.count else {
            throw fail("the detector's labels must be one or more distinct names")
        }
        guard model.scoreThreshold.isFinite, (0...1).contains(model.scoreThreshold) else {
            throw fail("the detector's score threshold \(model.scoreThreshold) is not between 0 and 1")
        }
        if let field = model.preprocessing.unsupportedField() { throw fail("the model's preprocessing \(field)") }
        let head = model.headTensors
        func tensor(_ name: String, shape: [Int?]) throws(ExportError) -> SafetensorsFile.Tensor {
            guard let found = head[name] else { throw fail("the detector has no tensor 'detector.\(name)'") }
            guard found.shape.count == shape.count,
                zip(found.shape, shape).allSatisfy({ $1 == nil || $0 == $1 }),
                found.values.count == found.shape.reduce(1, *)
            else {
                throw fail(
                    "tensor 'detector.\(name)' has shape \(found.shape), expected "
                        + "[\(shape.map { $0.map(String.init) ?? "any" }.joined(separator: ", "))]")
            }
            guard found.values.allSatisfy(\.isFinite) else { throw fail("tensor 'detector.\(name)' holds a value that is not finite") }
            return found
        }
        let mixingWeights = try tensor("mixing.weights", shape: [3, 3, nil, nil])
        let width = mixingWeights.shape[3]
        guard width > 0, mixingWeights.shape[2] == width else {
            throw fail("tensor 'detector.mixing.weights' has shape \(mixingWeights.shape), expected [3, 3, C, C]")
        }
        let outputs = model.labels.count + 4
        let fineWeights = try tensor("fineProjection.weights", shape: [EfficientNetLite0.stride16Channels, width])
        let coarseWeights = try tensor("coarseProjection.weights", shape: [EfficientNetLite0.stride32Channels, width])
        let mergeBias = try tensor("mergeBias.bias", shape: [width])
        let mixingBias = try tensor("mixingBias.bias", shape: [width])
        let outputWeights = try tensor("output.weights", shape: [width, outputs])
        let outputBias = try tensor("outputBias.bias", shape: [outputs])

        inputSide = side
        fineSide = EfficientNetLite0.mapSide(inputSide: side, stride: 16)
        coarseSide = EfficientNetLite0.mapSide(inputSide: side, stride: 32)
        labels = model.labels
        scoreThreshold = model.scoreThreshold
        mean = model.preprocessing.mean
        standardDeviation = model.preprocessing.std

        let walked = ExportPlan.backboneSteps(network, inputSide: side, includesHead: false)
        backbone = walked.steps
        fineMap = walked.blockOutputs[EfficientNetLite0.firstStride32Block - 1]
        coarseMap = walked.blockOutputs[walked.blockOutputs.count - 1]

        func pointwise(_ name: String, _ weights: SafetensorsFile.Tensor, bias: [Float]) -> ExportPlan.Convolution {
            let (inputs, outputs) = (weights.shape[0], weights.shape[1])
            return ExportPlan.Convolution(
                name: name, inputChannels: inputs, outputChannels: outputs, groups: 1, kernelSize: 1, stride: 1,
                padding: .zero, weightsOIHW: ExportPlan.transposed(weights.values, rows: inputs, columns: outputs),
                bias: bias, relu6: false)
        }
        fineProjection = pointwise("detector.fine_projection", fineWeights, bias: mergeBias.values)
        coarseProjection = pointwise("detector.coarse_projection", coarseWeights, bias: [Float](repeating: 0, count: width))
        // SAME padding of a 3×3 stride-1 convolution: one pixel on every side.
        mixing = ExportPlan.Convolution(
            name: "detector.mixing", inputChannels: width, outputChannels: width, groups: 1, kernelSize: 3, stride: 1,
            padding: Padding2D(top: 1, bottom: 1, left: 1, right: 1),
            weightsOIHW: ExportPlan.oihw(hwio: mixingWeights.values, kernelSize: 3, inputChannels: width, outputChannels: width),
            bias: mixingBias.values, relu6: true)
        output = pointwise("detector.output", outputWeights, bias: outputBias.values)
    }

    /// The head's width C.
    var width: Int { mixing.outputChannels }
    /// Cells in the output grid, `fineSide²`.
    var cellCount: Int { fineSide * fineSide }
}
