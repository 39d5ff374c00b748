import FileFormats
import Layers
import Synchronization

/// The pretrained EfficientNet-Lite0 backbone: 224×224 RGB in, 1280 features (and ImageNet logits) out.
///
/// Batch norm is folded into every convolution and the weights are repacked into the kernels' layouts once,
/// at load. All stored properties are immutable and every call allocates its own workspace, so `features`
/// may run on several threads at once.
public final class EfficientNetLite0: Sendable {
    /// Side of the square input image.
    public static let inputSide = 224
    /// Length of the feature vector.
    public static let featureCount = EfficientNetLite0Architecture.headChannels
    /// Classes of the pretrained ImageNet classifier.
    public static let imageNetClassCount = EfficientNetLite0Architecture.classCount

    /// 3×3 stride-2 stem: HWIO `[3, 3, 3, 32]` weights, bias `[32]`, TF SAME padding, ReLU6.
    public let stem: Convolution2D
    /// The 16 inverted-residual blocks (weights: expand IO, depthwise HWC, project IO; biases per output channel).
    public let blocks: [MBConvBlock]
    /// 1×1 head convolution: IO `[320, 1280]` weights, bias `[1280]`, ReLU6; its global average is the features.
    public let head: PointwiseConvolution
    /// ImageNet classifier: `[1000, 1280]` weights (out, in), bias `[1000]`.
    public let classifier: Dense

    /// Floats per image of the largest block input/output, expanded and depthwise-output tensors.
    private let activationCapacity: Int, expandedCapacity: Int, spatialCapacity: Int
    /// The first block whose input is at most `lateSideLimit` pixels square; from there on, images of a batch go
    /// block by block (see `features`). `lateCapacity` is the largest late block input/output per image.
    private let lateStart: Int, lateCapacity: Int
    /// Late blocks have small activations (≤ 14×14×192 floats) but the largest weights (up to 1.8 MB a block).
    private static let lateSideLimit = 14
    /// Images per group in the late blocks: enough to stream each block's weights once for several images.
    private static let lateGroupSize = 8
    /// Idle workspaces, reused across calls: a fresh 10 MB allocation per image costs page faults (about a
    /// quarter of the forward pass) that also serialise concurrent callers on the kernel's memory-map lock.
    /// A call takes one (or makes one) and gives it back, so there are at most as many as concurrent callers.
    private let idleWorkspaces = Mutex<[Workspace]>([])

    /// Loads and checks a safetensors file written by `scripts/setup/convert-backbone.py`.
    public convenience init(weightsPath: String) throws(BackboneWeightsError) {
        let file: SafetensorsFile
        do {
            file = try SafetensorsFile.read(path: weightsPath)
        } catch {
            throw BackboneWeightsError(path: weightsPath, reason: error.reason)
        }
        try self.init(weights: file, path: weightsPath)
    }

    /// Builds the network from parsed weights; `path` names the source in errors. Strict: every expected tensor
    /// must be present with its shape, and no other tensor may be.
    public init(weights file: SafetensorsFile, path: String) throws(BackboneWeightsError) {
        typealias Architecture = EfficientNetLite0Architecture
        try BackboneWeights.validate(file, path: path)

        let stemFolded = BackboneWeights.folded(file, weights: "_conv_stem.weight", batchNorm: "_bn0")
        stem = Convolution2D(
            weightsOIHW: stemFolded.weights, bias: stemFolded.bias,
            inputChannels: Architecture.inputChannels, outputChannels: Architecture.stemChannels,
            kernelSize: Architecture.stemKernelSize, stride: Architecture.stemStride,
            padding: .tensorFlowSame, activation: .relu6)

        blocks = Architecture.blocks.map { block in
            let prefix = "_blocks.\(block.index)."
            var expand: PointwiseConvolution?
            if block.hasExpansion {
                let folded = BackboneWeights.folded(file, weights: prefix + "_expand_conv.weight", batchNorm: prefix + "_bn0")
                expand = PointwiseConvolution(
                    weightsOIHW: folded.weights, bias: folded.bias, inputChannels: block.inputChannels,
                    outputChannels: block.expandedChannels, activation: .relu6)
            }
            let depthwiseFolded = BackboneWeights.folded(file, weights: prefix + "_depthwise_conv.weight", batchNorm: prefix + "_bn1")
            let depthwise = DepthwiseConvolution2D(
                weightsOIHW: depthwiseFolded.weights, bias: depthwiseFolded.bias,
                channels: block.expandedChannels, kernelSize: block.kernelSize,
                stride: block.stride, padding: .tensorFlowSame, activation: .relu6)
            let projectFolded = BackboneWeights.folded(file, weights: prefix + "_project_conv.weight", batchNorm: prefix + "_bn2")
            let project = PointwiseConvolution(
                weightsOIHW: projectFolded.weights, bias: projectFolded.bias,
                inputChannels: block.expandedChannels, outputChannels: block.outputChannels,
                activation: .none)
            return MBConvBlock(specification: block, expand: expand, depthwise: depthwise, project: project)
        }

        let headFolded = BackboneWeights.folded(file, weights: "_conv_head.weight", batchNorm: "_bn1")
        head = PointwiseConvolution(
            weightsOIHW: headFolded.weights, bias: headFolded.bias,
            inputChannels: Architecture.blocks.last!.outputChannels,
            outputChannels: Architecture.headChannels, activation: .relu6)
        classifier = Dense(
            weights: file.tensors["_fc.weight"]!.values, bias: file.tensors["_fc.bias"]!.values,
            inputCount: Architecture.headChannels, outputCount: Architecture.classCount)

        // Workspace sizes, walked once through the spatial sizes of a 224-px input.
        var side = stem.outputSize(inputHeight: Self.inputSide, inputWidth: Self.inputSide).height
        var activation = side * side * Architecture.stemChannels
        var expanded = 0, spatial = 0
        var late = blocks.count, lateFloats = 0
        for (index, block) in blocks.enumerated() {
            if late == blocks.count && side <= Self.lateSideLimit { late = index }
            if late <= index { lateFloats = max(lateFloats, side * side * block.specification.inputChannels) }
            expanded = max(expanded, side * side * block.specification.expandedChannels)
            let next = block.outputSize(inputHeight: side, inputWidth: side).height
            spatial = max(spatial, next * next * block.specification.expandedChannels)
            side = next
            activation = max(activation, side * side * block.specification.outputChannels)
            if late <= index { lateFloats = max(lateFloats, side * side * block.specification.outputChannels) }
        }
        expanded = max(expanded, side * side * Architecture.headChannels)
        (activationCapacity, expandedCapacity, spatialCapacity) = (activation, expanded, spatial)
        (lateStart, lateCapacity) = (late, lateFloats)
    }

    /// input `[batch, 224, 224, 3]` NHWC, already normalised (`(x − 127) / 128`, RGB). Returns `[batch, 1280]`.
    ///
    /// Images go in groups of up to eight. Each image runs alone through the stem and the early blocks, whose
    /// activations are large (one image's fit the caches, a batch's would not); then the group runs through
    /// the late blocks (14×14 and 7×7) block by block, so each block's weights, the largest of the network, are
    /// fetched once for the whole group instead of once per image. Buffers come from a workspace that is
    /// reused, never shared between concurrent calls. BLAS threading is the caller's choice
    /// (`GEMM.setBLASThreads`).
    public func features(_ input: [Float], batch: Int) -> [Float] {
        forward(input, batch: batch, keepsFeatureMaps: false)
    }

    /// Side of the last feature map (the head's output before pooling): 224 halved by the stem and each stride-2
    /// stage, rounding up as SAME padding does.
    public static let featureMapSide: Int = {
        var side = (inputSide + EfficientNetLite0Architecture.stemStride - 1) / EfficientNetLite0Architecture.stemStride
        for stage in EfficientNetLite0Architecture.stages { side = (side + stage.stride - 1) / stage.stride }
        return side
    }()

    /// input `[batch, 224, 224, 3]` as for `features`. Returns the head's output before global pooling,
    /// `[batch, 7, 7, 1280]` NHWC: `features` is its mean over the 49 positions. A linear classifier on the features
    /// applied at each position gives the class-activation map, exactly.
    public func featureMaps(_ input: [Float], batch: Int) -> [Float] {
        forward(input, batch: batch, keepsFeatureMaps: true)
    }

    /// The forward pass shared by `features` and `featureMaps`; only the last step per image differs (pool, or copy
    /// the map), so the pooled path pays nothing for the other.
    private func forward(_ input: [Float], batch: Int, keepsFeatureMaps: Bool) -> [Float] {
        let side = Self.inputSide, channels = EfficientNetLite0Architecture.inputChannels
        precondition(
            batch >= 0 && input.count == batch * side * side * channels,
            "EfficientNetLite0.features: expected \(batch)×\(side)×\(side)×\(channels) values, got \(input.count)")
        let mapFloats = Self.featureMapSide * Self.featureMapSide * Self.featureCount
        var output = [Float](repeating: 0, count: batch * (keepsFeatureMaps ? mapFloats : Self.featureCount))
        if batch == 0 { return output }
        let groupCapacity = Self.lateGroupSize * lateCapacity
        let capacity = 2 * activationCapacity + expandedCapacity + spatialCapacity + 2 * groupCapacity
        let borrowed = idleWorkspaces.withLock { $0.popLast() } ?? Workspace(capacity: capacity)
        defer { idleWorkspaces.withLock { $0.append(borrowed) } }
        let workspace = borrowed.floats
        let expanded = workspace + 2 * activationCapacity
        let spatial = expanded + expandedCapacity
        var lateCurrent = spatial + spatialCapacity
        var lateNext = lateCurrent + groupCapacity
        input.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                for first in stride(from: 0, to: batch, by: Self.lateGroupSize) {
                    let count = min(Self.lateGroupSize, batch - first)
                    var height = 0, width = 0
                    // Early blocks, one image at a time; each image's last early output lands in its group slot.
                    for slot in 0..<count {
                        let image = input.baseAddress! + (first + slot) * side * side * channels
                        let early = earlyForward(
                            image: image, blocks: lateStart, workspace: workspace, expanded: expanded,
                            spatial: spatial)
                        (height, width) = (early.height, early.width)
                        let current = early.output
                        let floats =
                            height * width
                            * (lateStart > 0
                                ? blocks[lateStart - 1].specification.outputChannels
                                : EfficientNetLite0Architecture.stemChannels)
                        (lateCurrent + slot * lateCapacity).update(from: current, count: floats)
                    }
                    // Late blocks, block by block over the group.
                    for index in lateStart..<blocks.count {
                        let block = blocks[index]
                        for slot in 0..<count {
                            // Within a group the same block runs again next, for the following image.
                            block.forward(
                                input: lateCurrent + slot * lateCapacity, batch: 1, height: height, width: width,
                                output: lateNext + slot * lateCapacity, expanded: expanded, spatial: spatial,
                                next: slot + 1 < count ? (block.expand ?? block.project) : followingLayer(index))
                        }
                        (height, width) = block.outputSize(inputHeight: height, inputWidth: width)
                        swap(&lateCurrent, &lateNext)
                    }
                    for slot in 0..<count {
                        head.forward(input: lateCurrent + slot * lateCapacity, pixelCount: height * width, output: expanded, residual: nil)
                        if keepsFeatureMaps {
                            precondition(height * width * Self.featureCount == mapFloats, "EfficientNetLite0: feature map size")
                            (output.baseAddress! + (first + slot) * mapFloats).update(from: expanded, count: mapFloats)
                        } else {
                            GlobalAveragePool.forward(
                                input: expanded, batch: 1, pixelCount: height * width, channels: Self.featureCount,
                                output: output.baseAddress! + (first + slot) * Self.featureCount)
                        }
                    }
                }
            }
        }
        return output
    }

    /// Side and channels of block `index`'s input for a 224-px image (the stem's output for block 0).
    public static func blockInputShape(_ index: Int) -> (side: Int, channels: Int) {
        precondition(index >= 0 && index < EfficientNetLite0Architecture.blocks.count, "EfficientNetLite0: no block \(index)")
        var side = (inputSide + EfficientNetLite0Architecture.stemStride - 1) / EfficientNetLite0Architecture.stemStride
        for block in EfficientNetLite0Architecture.blocks.prefix(index) { side = (side + block.stride - 1) / block.stride }
        return (side, EfficientNetLite0Architecture.blocks[index].inputChannels)
    }

    /// input `[batch, 224, 224, 3]` as for `features`. Returns block `index`'s input, `[batch, side, side, channels]`
    /// NHWC (`blockInputShape(index)`): what the layers below a fine-tuned top compute, which stay frozen.
    ///
    /// A separate, plain walk (one image at a time through the stem and blocks `0..<index`, the same kernels and
    /// arithmetic as `features`), so the grouped path of `features` pays nothing for it. BLAS threading is the
    /// caller's choice.
    public func blockInputs(_ input: [Float], batch: Int, block index: Int) -> [Float] {
        let side = Self.inputSide, channels = EfficientNetLite0Architecture.inputChannels
        precondition(
            batch >= 0 && input.count == batch * side * side * channels,
            "EfficientNetLite0.blockInputs: expected \(batch)×\(side)×\(side)×\(channels) values, got \(input.count)")
        let shape = Self.blockInputShape(index)
        let floats = shape.side * shape.side * shape.channels
        var output = [Float](repeating: 0, count: batch * floats)
        if batch == 0 { return output }
        let capacity = 2 * activationCapacity + expandedCapacity + spatialCapacity + 2 * Self.lateGroupSize * lateCapacity
        let borrowed = idleWorkspaces.withLock { $0.popLast() } ?? Workspace(capacity: capacity)
        defer { idleWorkspaces.withLock { $0.append(borrowed) } }
        let workspace = borrowed.floats
        let expanded = workspace + 2 * activationCapacity
        let spatial = expanded + expandedCapacity
        input.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                for item in 0..<batch {
                    let image = input.baseAddress! + item * side * side * channels
                    let (current, height, width) = earlyForward(
                        image: image, blocks: index, workspace: workspace,
                        expanded: expanded, spatial: spatial)
                    precondition(height == shape.side && width == shape.side, "EfficientNetLite0.blockInputs: block input size")
                    (output.baseAddress! + item * floats).update(from: current, count: floats)
                }
            }
        }
        return output
    }

    /// One image `[side, side, 3]` through the stem and blocks `0..<end`, one at a time, alternating between the
    /// two activation buffers at `workspace` and `workspace + bufferCapacity`; `features` (its early blocks),
    /// `blockInputs` and `featurePyramid` share it so they stay the same arithmetic. Returns the buffer holding the
    /// last output, the other buffer, and the output's height and width.
    @inline(__always)
    private func earlyForward(
        image: UnsafePointer<Float>, side: Int = EfficientNetLite0.inputSide, blocks end: Int,
        workspace: UnsafeMutablePointer<Float>, bufferCapacity: Int? = nil,
        expanded: UnsafeMutablePointer<Float>,
        spatial: UnsafeMutablePointer<Float>
    ) -> (output: UnsafeMutablePointer<Float>, height: Int, width: Int) {
        let walk = walkBlocks(
            image: image, side: side, blocks: end, workspace: workspace,
            bufferCapacity: bufferCapacity ?? activationCapacity, expanded: expanded, spatial: spatial)
        return (walk.output, walk.height, walk.width)
    }

    /// The walk behind `earlyForward`, also returning the free buffer so a caller can go on with more blocks.
    @inline(__always)
    private func walkBlocks(
        image: UnsafePointer<Float>, side: Int, blocks end: Int, workspace: UnsafeMutablePointer<Float>,
        bufferCapacity: Int, expanded: UnsafeMutablePointer<Float>, spatial: UnsafeMutablePointer<Float>
    )
        -> (output: UnsafeMutablePointer<Float>, free: UnsafeMutablePointer<Float>, height: Int, width: Int)
    {
        var current = workspace, next = workspace + bufferCapacity
        var (height, width) = stem.outputSize(inputHeight: side, inputWidth: side)
        var firstBlock = 0
        if fusesStem && end > 0 {
            // The stem's rows are produced band by band inside block 0 (see InvertedResidual).
            InvertedResidual.forward(
                stem: stem, depthwise: blocks[0].depthwise, project: blocks[0].project,
                input: image, batch: 1, imageHeight: side, imageWidth: side, output: current,
                expanded: expanded, spatial: spatial, next: followingLayer(0))
            (height, width) = blocks[0].outputSize(inputHeight: height, inputWidth: width)
            firstBlock = 1
        } else {
            stem.forward(input: image, batch: 1, height: side, width: side, output: current)
        }
        continueBlocks(
            firstBlock..<end, current: &current, next: &next, height: &height, width: &width,
            expanded: expanded, spatial: spatial)
        return (current, next, height, width)
    }

    /// Blocks `range` on one image whose input is in `current`; on return `current` holds the output.
    @inline(__always)
    private func continueBlocks(
        _ range: Range<Int>, current: inout UnsafeMutablePointer<Float>,
        next: inout UnsafeMutablePointer<Float>, height: inout Int, width: inout Int,
        expanded: UnsafeMutablePointer<Float>, spatial: UnsafeMutablePointer<Float>
    ) {
        for index in range {
            let block = blocks[index]
            block.forward(
                input: current, batch: 1, height: height, width: width, output: next,
                expanded: expanded, spatial: spatial, next: followingLayer(index))
            (height, width) = block.outputSize(inputHeight: height, inputWidth: width)
            swap(&current, &next)
        }
    }

    /// The first block whose output is at stride 32: its input is the stride-16 map `featurePyramid` returns.
    public static let firstStride32Block: Int = {
        var stride = EfficientNetLite0Architecture.stemStride
        for block in EfficientNetLite0Architecture.blocks {
            if stride * block.stride == 32 { return block.index }
            stride *= block.stride
        }
        preconditionFailure("EfficientNetLite0Architecture: no stride-32 block")
    }()

    /// Channels of the stride-16 map (the last stride-16 block's output: 112).
    public static let stride16Channels = EfficientNetLite0Architecture.blocks[firstStride32Block - 1].outputChannels
    /// Channels of the stride-32 map (the last block's output, before the 1×1 head: 320).
    public static let stride32Channels = EfficientNetLite0Architecture.blocks.last!.outputChannels

    /// Side of a map at `stride` for a `side`-pixel square input, rounding up at each stride-2 step as SAME padding
    /// does.
    public static func mapSide(inputSide side: Int, stride: Int) -> Int {
        var mapSide = (side + EfficientNetLite0Architecture.stemStride - 1) / EfficientNetLite0Architecture.stemStride
        var reached = EfficientNetLite0Architecture.stemStride
        for block in EfficientNetLite0Architecture.blocks where reached < stride && block.stride > 1 {
            mapSide = (mapSide + block.stride - 1) / block.stride
            reached *= block.stride
        }
        return mapSide
    }

    /// input `[batch, side, side, 3]` NHWC, normalised as for `features`, at any side of at least 32. Returns the
    /// detector's two maps (`FeaturePyramid`): block `firstStride32Block`'s input (stride 16, 112 channels) and the
    /// last block's output (stride 32, 320 channels, before the 1×1 head).
    ///
    /// One image at a time through the same walk as `blockInputs` and the early part of `features` (same kernels,
    /// same arithmetic), in a workspace sized for `side` and made for this call: the detector caches its maps, so
    /// this runs once per image and view. BLAS threading is the caller's choice.
    public func featurePyramid(_ input: [Float], batch: Int, side: Int) -> FeaturePyramid {
        let channels = EfficientNetLite0Architecture.inputChannels
        precondition(
            side >= 32 && batch >= 0 && input.count == batch * side * side * channels,
            "EfficientNetLite0.featurePyramid: expected \(batch)×\(side)×\(side)×\(channels) values, got \(input.count)")
        let fineSide = Self.mapSide(inputSide: side, stride: 16), coarseSide = Self.mapSide(inputSide: side, stride: 32)
        let fineFloats = fineSide * fineSide * Self.stride16Channels
        let coarseFloats = coarseSide * coarseSide * Self.stride32Channels
        var fine = [Float](repeating: 0, count: batch * fineFloats)
        var coarse = [Float](repeating: 0, count: batch * coarseFloats)
        let sizes = Self.workspaceSizes(side: side)
        let workspace = Workspace(capacity: 2 * sizes.activation + sizes.expanded + sizes.spatial)
        let buffers = workspace.floats
        let expanded = buffers + 2 * sizes.activation
        let spatial = expanded + sizes.expanded
        input.withUnsafeBufferPointer { input in
            fine.withUnsafeMutableBufferPointer { fine in
                coarse.withUnsafeMutableBufferPointer { coarse in
                    for item in 0..<batch {
                        let image = input.baseAddress! + item * side * side * channels
                        var (current, next, height, width) = walkBlocks(
                            image: image, side: side, blocks: Self.firstStride32Block, workspace: buffers,
                            bufferCapacity: sizes.activation, expanded: expanded, spatial: spatial)
                        precondition(height == fineSide && width == fineSide, "EfficientNetLite0.featurePyramid: stride-16 size")
                        (fine.baseAddress! + item * fineFloats).update(from: current, count: fineFloats)
                        continueBlocks(
                            Self.firstStride32Block..<blocks.count, current: &current, next: &next,
                            height: &height, width: &width, expanded: expanded, spatial: spatial)
                        precondition(height == coarseSide && width == coarseSide, "EfficientNetLite0.featurePyramid: stride-32 size")
                        (coarse.baseAddress! + item * coarseFloats).update(from: current, count: coarseFloats)
                    }
                }
            }
        }
        return FeaturePyramid(batch: batch, inputSide: side, fineSide: fineSide, fine: fine, coarseSide: coarseSide, coarse: coarse)
    }

    /// Floats of the largest block input or output, expanded and depthwise-output tensor of one `side`-pixel image
    /// (the stem's output counted as an activation).
    static func workspaceSizes(side inputSide: Int) -> (activation: Int, expanded: Int, spatial: Int) {
        var side = (inputSide + EfficientNetLite0Architecture.stemStride - 1) / EfficientNetLite0Architecture.stemStride
        var activation = side * side * EfficientNetLite0Architecture.stemChannels, expanded = 0, spatial = 0
        for block in EfficientNetLite0Architecture.blocks {
            expanded = max(expanded, side * side * block.expandedChannels)
            side = (side + block.stride - 1) / block.stride
            spatial = max(spatial, side * side * block.expandedChannels)
            activation = max(activation, side * side * block.outputChannels)
        }
        return (activation, expanded, spatial)
    }

    /// Whether the stem runs inside block 0: possible when that block has neither expansion nor residual (true
    /// for EfficientNet-Lite0) and is an early block.
    private var fusesStem: Bool {
        lateStart > 0 && blocks[0].expand == nil && !blocks[0].specification.hasResidual
    }

    /// The first 1×1 layer after block `index`: the next block's expand (its project when it has none), or the head.
    private func followingLayer(_ index: Int) -> PointwiseConvolution {
        index + 1 < blocks.count ? (blocks[index + 1].expand ?? blocks[index + 1].project) : head
    }

    /// features `[batch, 1280]` → ImageNet logits `[batch, 1000]` (no softmax).
    public func imageNetLogits(features: [Float], batch: Int) -> [Float] {
        precondition(features.count == batch * Self.featureCount, "EfficientNetLite0.imageNetLogits: features count")
        return classifier.forward(features, batch: batch)
    }
}

/// Scratch memory for one `features` call at a time; handed between threads only through the pool's mutex.
private final class Workspace: @unchecked Sendable {
    let floats: UnsafeMutablePointer<Float>
    init(capacity: Int) { floats = .allocate(capacity: capacity) }
    deinit { floats.deallocate() }
}
