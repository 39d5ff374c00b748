import Layers
import Models

/// EfficientNet-Lite0 from a chosen layer to its 1280 features, as trainable layers, built from the same folded
/// weights as the inference network (`Models.EfficientNetLite0`):
/// `[stem 3×3/2 → scale-bias → ReLU6] → blocks[first...] → head 1×1 → scale-bias → ReLU6 → global average`.
///
/// Each convolution keeps the inference network's folded weights (batch norm folded in by
/// `Layers.BatchNormFolding` at load); the scale-bias after it starts at scale 1 with the folded bias, so the
/// untrained network computes exactly what the inference path computes. The layers below `start` stay frozen
/// and are not part of this value: its input is their output.
///
/// Shapes: input `[batch, 224, 224, 3]` when training from the stem, else block `first`'s input
/// (`[batch, side, side, inputChannels]`, e.g. `[batch, 7, 7, 192]` for block 15); features `[batch, 1280]`.
/// Other spatial sizes work too (tests use small ones).
public struct TrainableEfficientNetLite0: Sendable {
    /// Where the trainable part begins.
    public enum Start: Sendable, Equatable {
        /// Everything trains, from the stem on.
        case stem
        /// Blocks from this index (0...15) on train, with the head convolution.
        case block(Int)
    }

    /// Where the trainable part begins.
    public let start: Start
    /// 3×3 stride-2 stem, HWIO `[3, 3, 3, 32]`; nil unless `start` is `.stem`.
    public var stem: ConvolutionLayer<Float>?
    /// `[32]`; nil unless `start` is `.stem`.
    public var stemScaleBias: ChannelScaleBiasLayer<Float>?
    /// The trainable blocks, in order (`blocks[0]` is the network's block `firstBlockIndex`).
    public var blocks: [InvertedResidualBlock<Float>]
    /// 1×1 head convolution, `[320, 1280]`.
    public var head: PointwiseConvolutionLayer<Float>
    /// `[1280]`.
    public var headScaleBias: ChannelScaleBiasLayer<Float>

    /// The trainable top of `backbone` from `start`, with copies of its folded weights.
    public init(backbone: EfficientNetLite0, trainableFrom start: Start) {
        let first: Int
        switch start {
        case .stem: first = 0
        case .block(let index):
            precondition(index >= 0 && index < backbone.blocks.count, "TrainableEfficientNetLite0: no block \(index)")
            first = index
        }
        self.start = start
        if start == .stem {
            let stem = backbone.stem
            stemScaleBias = ChannelScaleBiasLayer(bias: Tensor(shape: [stem.outputChannels], storage: stem.bias))
            self.stem = ConvolutionLayer(
                weights: Tensor(
                    shape: [stem.kernelSize, stem.kernelSize, stem.inputChannels, stem.outputChannels],
                    storage: stem.weights),
                stride: stem.stride, padding: stem.padding)
        }
        blocks = backbone.blocks[first...].map(Self.trainableBlock)
        head = Self.pointwise(backbone.head)
        headScaleBias = ChannelScaleBiasLayer(bias: Tensor(shape: [backbone.head.outputChannels], storage: backbone.head.bias))
    }

    private static func pointwise(_ layer: PointwiseConvolution) -> PointwiseConvolutionLayer<Float> {
        PointwiseConvolutionLayer(weights: Tensor(shape: [layer.inputChannels, layer.outputChannels], storage: layer.weights))
    }

    private static func trainableBlock(_ block: MBConvBlock) -> InvertedResidualBlock<Float> {
        let depthwise = block.depthwise
        return InvertedResidualBlock(
            specification: block.specification,
            expand: block.expand.map { (pointwise($0), ChannelScaleBiasLayer(bias: Tensor(shape: [$0.outputChannels], storage: $0.bias))) },
            depthwise: DepthwiseConvolutionLayer(
                weights: Tensor(
                    shape: [depthwise.kernelSize, depthwise.kernelSize, depthwise.channels],
                    storage: depthwise.weights),
                stride: depthwise.stride, padding: depthwise.padding),
            depthwiseScaleBias: ChannelScaleBiasLayer(bias: Tensor(shape: [depthwise.channels], storage: depthwise.bias)),
            project: pointwise(block.project),
            projectScaleBias: ChannelScaleBiasLayer(bias: Tensor(shape: [block.project.outputChannels], storage: block.project.bias)))
    }

    /// The network's index of `blocks[0]`.
    public var firstBlockIndex: Int {
        if case .block(let index) = start { return index }
        return 0
    }

    /// The shape of one input item (without the batch dimension) for 224×224 images.
    public var inputItemShape: [Int] {
        var side = EfficientNetLite0.inputSide
        if start == .stem { return [side, side, EfficientNetLite0Architecture.inputChannels] }
        side = (side + 1) / 2  // the stem's stride
        for block in EfficientNetLite0Architecture.blocks.prefix(firstBlockIndex) { side = (side + block.stride - 1) / block.stride }
        return [side, side, EfficientNetLite0Architecture.blocks[firstBlockIndex].inputChannels]
    }

    /// What the backward pass reads, layer by layer: the ReLU6 outputs and the inputs of the convolutions.
    public struct Cache: Sendable {
        /// The images, when the stem trains.
        public let images: Tensor<Float>?
        /// The stem's ReLU6 output (block 0's input), when the stem trains.
        public let stemActivated: Tensor<Float>?
        /// One per trainable block, in order.
        public let blocks: [InvertedResidualBlock<Float>.Cache]
        /// The head convolution's input (the last block's output).
        public let headInput: Tensor<Float>
        /// The head's ReLU6 output (what is pooled).
        public let headActivated: Tensor<Float>
        /// The pooling's (the head output's shape).
        public let pooling: GlobalAveragePoolingLayer<Float>.Cache
    }

    /// The loss's gradient with respect to every trainable parameter.
    public struct Gradients: Sendable, Equatable {
        /// Nil unless the stem trains.
        public var stem: ConvolutionLayer<Float>.Gradients?
        /// Nil unless the stem trains.
        public var stemScaleBias: ChannelScaleBiasLayer<Float>.Gradients?
        /// One per trainable block, in order.
        public var blocks: [InvertedResidualBlock<Float>.Gradients]
        /// The head convolution's.
        public var head: PointwiseConvolutionLayer<Float>.Gradients
        /// The head scale-bias's.
        public var headScaleBias: ChannelScaleBiasLayer<Float>.Gradients

        /// Adds another part of the batch's gradients.
        public static func += (left: inout Self, right: Self) {
            if left.stem != nil, let stem = right.stem, let scaleBias = right.stemScaleBias {
                left.stem! += stem
                left.stemScaleBias! += scaleBias
            }
            for index in left.blocks.indices { left.blocks[index] += right.blocks[index] }
            left.head += right.head
            left.headScaleBias += right.headScaleBias
        }
    }

    /// Calls `rule` for each parameter with its gradient; names are `stem.weights`, `blocks.15.expand.weights`
    /// (the network's block index), `head.weights`, `headScaleBias.scale` and so on.
    public mutating func update(with gradients: Gradients, _ rule: ParameterUpdate<Float>) {
        if let stemGradients = gradients.stem, let scaleBiasGradients = gradients.stemScaleBias {
            stem?.update(with: stemGradients, prefix: "stem.", rule)
            stemScaleBias?.update(with: scaleBiasGradients, prefix: "stemScaleBias.", rule)
        }
        for index in blocks.indices {
            blocks[index].update(with: gradients.blocks[index], prefix: "blocks.\(blocks[index].specification.index).", rule)
        }
        head.update(with: gradients.head, prefix: "head.", rule)
        headScaleBias.update(with: gradients.headScaleBias, prefix: "headScaleBias.", rule)
    }

    /// input → features `[batch, 1280]` (see the type's shapes), with the cache when training. Every convolution
    /// runs with its scale-bias folded in (`FoldedScale`).
    public func forward(
        _ input: Tensor<Float>, mode: ForwardMode,
        kernel: KernelChoice = .automatic
    ) -> (features: Tensor<Float>, cache: Cache?) {
        // Any spatial size works (the network is convolutional to the pooling); 224×224 images are what it was trained on.
        precondition(
            input.rank == 4 && input.shape[3] == inputItemShape[2],
            "TrainableEfficientNetLite0: input \(input.shape), expected [batch, height, width, \(inputItemShape[2])]")
        var current = input
        var stemActivated: Tensor<Float>?
        if let stem, let stemScaleBias {
            current = stem.fusedForward(input, stemScaleBias, kernel: kernel)
            stemActivated = current
        }
        var blockCaches: [InvertedResidualBlock<Float>.Cache] = []
        for block in blocks {
            let step = block.forward(current, mode: mode, kernel: kernel)
            current = step.output
            if let cache = step.cache { blockCaches.append(cache) }
        }
        let headActivated = head.fusedForward(current, headScaleBias, activation: .relu6, residual: nil, kernel: kernel)
        let pooling = GlobalAveragePoolingLayer<Float>().forward(headActivated, mode: mode)
        guard mode == .training, let poolingCache = pooling.cache else { return (pooling.output, nil) }
        return (
            pooling.output,
            Cache(
                images: stem == nil ? nil : input, stemActivated: stemActivated, blocks: blockCaches,
                headInput: current, headActivated: headActivated, pooling: poolingCache)
        )
    }

    /// features' gradient `[batch, 1280]` → every parameter's gradient. The input's gradient is never formed:
    /// the layers below `start` are frozen.
    public func backward(_ featureGradient: Tensor<Float>, cache: Cache, kernel: KernelChoice = .automatic) -> Gradients {
        let headActivatedGradient = GlobalAveragePoolingLayer<Float>().backward(featureGradient, cache: cache.pooling)
        let headGradient = FoldedScale.preActivationGradient(headActivatedGradient, activated: cache.headActivated, kernel: kernel)
        let headStep = head.fusedBackward(
            headGradient.gradient, biasGradient: headGradient.biasGradient, input: cache.headInput,
            headScaleBias, computesInputGradient: !blocks.isEmpty || stem != nil, kernel: kernel)
        var gradient = headStep.input
        var blockGradients: [InvertedResidualBlock<Float>.Gradients] = []
        for index in blocks.indices.reversed() {
            // The first trainable block's input gradient is needed only when the stem trains too.
            let step = blocks[index].backward(
                gradient!, cache: cache.blocks[index], computesInputGradient: index > 0 || stem != nil,
                kernel: kernel)
            blockGradients.append(step.gradients)
            gradient = step.input
        }
        var gradients = Gradients(
            stem: nil, stemScaleBias: nil, blocks: blockGradients.reversed(), head: headStep.gradients,
            headScaleBias: headStep.scaleBias)
        if let stem, let stemScaleBias, let images = cache.images, let activated = cache.stemActivated {
            let stemGradient = FoldedScale.preActivationGradient(gradient!, activated: activated, kernel: kernel)
            let stemStep = stem.fusedBackward(
                stemGradient.gradient, biasGradient: stemGradient.biasGradient, input: images, stemScaleBias,
                kernel: kernel)
            gradients.stem = stemStep.gradients
            gradients.stemScaleBias = stemStep.scaleBias
        }
        return gradients
    }
}
