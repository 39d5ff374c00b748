import FileFormats
import Layers
import Synchronization

/// The person detector's network: a 300×300 RGB picture in, per anchor a box encoding and class logits out.
///
/// Built from `SSDLiteMobileNetV2Architecture` on the shared layers: the MobileNetV2 blocks and the SSD extra
/// layers run as `InvertedResidual`s (expand → depthwise → project), and so do the box predictors (a depthwise
/// 3×3 then a linear 1×1, an inverted residual without expansion). Batch norm is folded in by the converter.
/// All stored properties are immutable and every call borrows its own workspace, so `forward` may run on several
/// threads at once.
public final class SSDLiteMobileNetV2: Sendable {
    typealias Architecture = SSDLiteMobileNetV2Architecture

    /// Side of the square input.
    public static let inputSide = Architecture.inputSide
    /// Anchors, hence rows of the outputs: 1,917.
    public static let anchorCount = Architecture.anchorCount

    /// One inverted-residual step: `[expand] → depthwise → project`.
    struct Step: Sendable {
        let expand: PointwiseConvolution?
        let depthwise: DepthwiseConvolution2D
        let project: PointwiseConvolution
        let addsInput: Bool
    }

    /// 3×3 stride-2 stem, 3 → 32 channels, ReLU6 (HWIO weights).
    let stem: Convolution2D
    /// The 17 MobileNetV2 blocks.
    let blocks: [Step]
    /// 1×1, 320 → 1280, ReLU6: its output is the second feature map.
    let last: PointwiseConvolution
    /// The four SSD extra layers, each producing the next feature map.
    let extras: [Step]
    /// Per feature map, the box-encoding and class predictors.
    let boxPredictors: [Step], classPredictors: [Step]
    /// `[anchorCount, 4]`: each anchor's (yCenter, xCenter, height, width) in fractions of the input, in the order
    /// of the outputs' rows.
    public let anchors: [Float]

    /// Floats of the largest block activation, expanded tensor and depthwise output for a 300-px input.
    private let activationCapacity: Int, expandedCapacity: Int, spatialCapacity: Int
    /// Offsets of each feature map in the workspace's feature area, and that area's size.
    private let featureOffsets: [Int], featureCapacity: Int
    /// Idle workspaces, reused across calls (see `EfficientNetLite0.idleWorkspaces` for why).
    private let idleWorkspaces = Mutex<[DetectorWorkspace]>([])

    /// Loads and checks a safetensors file written by `workbench-convert-detector`.
    public convenience init(weightsPath: String) throws(DetectorWeightsError) {
        let file: SafetensorsFile
        do {
            file = try SafetensorsFile.read(path: weightsPath)
        } catch {
            throw DetectorWeightsError(path: weightsPath, reason: error.reason)
        }
        try self.init(weights: file, path: weightsPath)
    }

    /// Builds the network from parsed weights; `path` names the source in errors. Strict: every expected tensor
    /// must be present with its shape, and no other tensor may be.
    public init(weights file: SafetensorsFile, path: String) throws(DetectorWeightsError) {
        try DetectorWeights.validate(file, path: path)
        let kernelSize = Architecture.kernelSize
        var byScope: [String: DetectorWeights.Layer] = [:]
        for layer in DetectorWeights.layers { byScope[layer.scope] = layer }
        func tensor(_ name: String) -> [Float] { file.tensors[name]!.values }
        func pointwise(_ scope: String) -> PointwiseConvolution {
            let layer = byScope[scope]!
            guard case .pointwise(let input, let output) = layer.kind else { preconditionFailure("\(scope) is not 1×1") }
            return PointwiseConvolution(
                weightsOIHW: tensor(scope + ".weight"), bias: tensor(scope + ".bias"),
                inputChannels: input, outputChannels: output, activation: layer.activation)
        }
        func depthwise(_ scope: String) -> DepthwiseConvolution2D {
            let layer = byScope[scope]!
            guard case .depthwise(let channels, let stride) = layer.kind else { preconditionFailure("\(scope) is not depthwise") }
            return DepthwiseConvolution2D(
                weightsOIHW: tensor(scope + ".weight"), bias: tensor(scope + ".bias"), channels: channels,
                kernelSize: kernelSize, stride: stride, padding: .tensorFlowSame, activation: layer.activation)
        }

        stem = Convolution2D(
            weightsOIHW: tensor(Architecture.stemScope + ".weight"), bias: tensor(Architecture.stemScope + ".bias"),
            inputChannels: Architecture.inputChannels, outputChannels: Architecture.stemChannels,
            kernelSize: kernelSize, stride: 2, padding: .tensorFlowSame, activation: .relu6)
        blocks = Architecture.blocks.map { block in
            Step(
                expand: block.hasExpansion ? pointwise(block.scope + "/expand") : nil, depthwise: depthwise(block.scope + "/depthwise"),
                project: pointwise(block.scope + "/project"), addsInput: block.hasResidual)
        }
        last = pointwise(Architecture.lastScope)
        extras = Architecture.extraLayers.map { extra in
            Step(
                expand: pointwise(extra.reduceScope), depthwise: depthwise(extra.depthwiseScope), project: pointwise(extra.expandScope),
                addsInput: false)
        }
        boxPredictors = Architecture.featureMaps.map { map in
            Step(expand: nil, depthwise: depthwise(map.boxScope + "_depthwise"), project: pointwise(map.boxScope), addsInput: false)
        }
        classPredictors = Architecture.featureMaps.map { map in
            Step(expand: nil, depthwise: depthwise(map.classScope + "_depthwise"), project: pointwise(map.classScope), addsInput: false)
        }
        anchors = tensor(DetectorWeights.anchorsName)

        // Workspace sizes, walked once through the spatial sizes of a 300-px input.
        var side = (Self.inputSide + 1) / 2
        var activation = side * side * Architecture.stemChannels, expanded = activation, spatial = 0
        for block in Architecture.blocks {
            expanded = max(expanded, side * side * block.expandedChannels)
            side = (side + block.stride - 1) / block.stride
            spatial = max(spatial, side * side * block.expandedChannels)
            activation = max(activation, side * side * block.outputChannels)
        }
        for map in Architecture.featureMaps {
            // The predictors' depthwise outputs, and the extra layers' reductions (smaller than their inputs).
            spatial = max(spatial, map.side * map.side * map.channels)
            expanded = max(expanded, map.side * map.side * map.channels)
        }
        var offsets: [Int] = [], total = 0
        for map in Architecture.featureMaps {
            offsets.append(total)
            total += map.side * map.side * map.channels
        }
        (activationCapacity, expandedCapacity, spatialCapacity) = (activation, expanded, spatial)
        (featureOffsets, featureCapacity) = (offsets, total)
    }

    /// input `[300, 300, 3]` NHWC, already preprocessed (`x·2/255 − 1`, RGB) → `boxEncodings [anchorCount, 4]`
    /// (ty, tx, th, tw per anchor, before the box coder's scales) and `classLogits [anchorCount, 2]` (background,
    /// person). The rows follow `anchors`: feature map by map, row by row, position by position, anchor by anchor,
    /// which is TensorFlow's reshape of each predictor's `[H, W, anchors·4]` output. No output overlaps the input.
    public func forward(
        input: UnsafePointer<Float>, boxEncodings: UnsafeMutablePointer<Float>,
        classLogits: UnsafeMutablePointer<Float>
    ) {
        let borrowed =
            idleWorkspaces.withLock { $0.popLast() }
            ?? DetectorWorkspace(capacity: 2 * activationCapacity + expandedCapacity + spatialCapacity + featureCapacity)
        defer { idleWorkspaces.withLock { $0.append(borrowed) } }
        var current = borrowed.floats, next = current + activationCapacity
        let expanded = next + activationCapacity
        let spatial = expanded + expandedCapacity
        let features = featureOffsets.map { spatial + spatialCapacity + $0 }
        let side = Self.inputSide

        // Stem and block 0 (no expansion, no residual) as one banded pass.
        InvertedResidual.forward(
            stem: stem, depthwise: blocks[0].depthwise, project: blocks[0].project, input: input, batch: 1,
            imageHeight: side, imageWidth: side, output: current, expanded: expanded, spatial: spatial,
            next: blocks[1].expand)
        var height = blocks[0].depthwise.outputSize(inputHeight: (side + 1) / 2, inputWidth: (side + 1) / 2).height
        for index in 1..<blocks.count {
            let block = blocks[index]
            var blockInput = UnsafePointer(current), expand = block.expand
            if index == Architecture.firstFeatureBlock, let blockExpand = block.expand {
                // The expanded tensor is the first feature map: computed whole, kept, and fed to the depthwise.
                blockExpand.forward(input: current, pixelCount: height * height, output: features[0], residual: nil)
                blockInput = UnsafePointer(features[0])
                expand = nil
            }
            let following = index + 1 < blocks.count ? (blocks[index + 1].expand ?? blocks[index + 1].project) : last
            InvertedResidual.forward(
                expand: expand, depthwise: block.depthwise, project: block.project, addsInput: block.addsInput,
                input: blockInput, batch: 1, height: height, width: height, output: next, expanded: expanded,
                spatial: spatial, next: following)
            height = block.depthwise.outputSize(inputHeight: height, inputWidth: height).height
            swap(&current, &next)
        }
        last.forward(input: current, pixelCount: height * height, output: features[1], residual: nil)
        for (index, extra) in extras.enumerated() {
            InvertedResidual.forward(
                expand: extra.expand, depthwise: extra.depthwise, project: extra.project, addsInput: false,
                input: features[index + 1], batch: 1, height: height, width: height,
                output: features[index + 2], expanded: expanded, spatial: spatial)
            height = extra.depthwise.outputSize(inputHeight: height, inputWidth: height).height
        }

        var anchorOffset = 0
        for (index, map) in Architecture.featureMaps.enumerated() {
            for (predictor, output, perAnchor) in [
                (boxPredictors[index], boxEncodings, Architecture.boxCodeLength),
                (classPredictors[index], classLogits, Architecture.classCount),
            ] {
                InvertedResidual.forward(
                    expand: nil, depthwise: predictor.depthwise, project: predictor.project, addsInput: false,
                    input: features[index], batch: 1, height: map.side, width: map.side,
                    output: output + anchorOffset * perAnchor, expanded: expanded, spatial: spatial)
            }
            anchorOffset += map.anchorCount
        }
    }

    /// `forward` on arrays: input `[300·300·3]` → (`[anchorCount·4]`, `[anchorCount·2]`).
    public func forward(_ input: [Float]) -> (boxEncodings: [Float], classLogits: [Float]) {
        precondition(
            input.count == Self.inputSide * Self.inputSide * Architecture.inputChannels,
            "SSDLiteMobileNetV2.forward: expected 300×300×3 values, got \(input.count)")
        var boxes = [Float](repeating: 0, count: Self.anchorCount * Architecture.boxCodeLength)
        var logits = [Float](repeating: 0, count: Self.anchorCount * Architecture.classCount)
        input.withUnsafeBufferPointer { input in
            boxes.withUnsafeMutableBufferPointer { boxes in
                logits.withUnsafeMutableBufferPointer { logits in
                    forward(input: input.baseAddress!, boxEncodings: boxes.baseAddress!, classLogits: logits.baseAddress!)
                }
            }
        }
        return (boxes, logits)
    }
}

/// Scratch memory for one `forward` call at a time; handed between threads only through the pool's mutex.
private final class DetectorWorkspace: @unchecked Sendable {
    let floats: UnsafeMutablePointer<Float>
    init(capacity: Int) { floats = .allocate(capacity: capacity) }
    deinit { floats.deallocate() }
}
