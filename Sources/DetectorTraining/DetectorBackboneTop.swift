import FileFormats
import Models
import TrainableLayers

/// The part of EfficientNet-Lite0 a detector fine-tunes: every MBConv block after the stride-16 tap (blocks 11–15,
/// `EfficientNetLite0.firstStride32Block` on), which turns the stride-16 map into the stride-32 map the head reads.
///
/// ```text
/// fine [N, Hf, Wf, 112] ─ block 11 (5×5, stride 2) ─ blocks 12–14 ─ block 15 ─ coarse [N, Hc, Wc, 320]
/// ```
/// The layers below the tap stay frozen, so the stride-16 map (cached per view) is both this part's input and the
/// head's fine input. The blocks are `TrainableLayers.InvertedResidualBlock`s built from the pretrained network's
/// folded weights (scale 1, the folded bias), so the untrained top computes what `featurePyramid` computes; the
/// final 1×1 head convolution a classifier pools is not used by a detector and does not train.
public struct DetectorBackboneTop: Sendable {
    /// The trainable blocks in order, `blocks[0]` being the network's block `firstBlock`.
    public var blocks: [InvertedResidualBlock<Float>]

    /// The network's first trained block: the one whose input is the stride-16 map.
    public static let firstBlock = EfficientNetLite0.firstStride32Block

    /// The top of `network`, with copies of its folded weights.
    public init(network: EfficientNetLite0) {
        blocks = TrainableEfficientNetLite0(backbone: network, trainableFrom: .block(Self.firstBlock)).blocks
    }

    /// What the backward pass reads: one cache per block.
    public struct Cache: Sendable {
        let blocks: [InvertedResidualBlock<Float>.Cache]
    }

    /// Every block's gradients, in block order.
    public struct Gradients: Sendable, Equatable {
        /// One per block.
        public var blocks: [InvertedResidualBlock<Float>.Gradients]

        /// Adds another part of a batch's gradients.
        public static func += (left: inout Self, right: Self) {
            for index in left.blocks.indices { left.blocks[index] += right.blocks[index] }
        }
    }

    /// fine `[N, Hf, Wf, 112]` → coarse `[N, Hc, Wc, 320]`, with the cache when training (the blocks' fused kernels,
    /// the inference arithmetic).
    public func forward(_ fine: Tensor<Float>, mode: ForwardMode) -> (coarse: Tensor<Float>, cache: Cache?) {
        var current = fine
        var caches: [InvertedResidualBlock<Float>.Cache] = []
        for block in blocks {
            let step = block.forward(current, mode: mode)
            current = step.output
            if let cache = step.cache { caches.append(cache) }
        }
        return (current, mode == .training ? Cache(blocks: caches) : nil)
    }

    /// The coarse map's gradient → every block's gradients. The fine map's gradient is never formed: the layers
    /// below are frozen.
    public func backward(_ coarseGradient: Tensor<Float>, cache: Cache) -> Gradients {
        var gradient: Tensor<Float>? = coarseGradient
        var gradients: [InvertedResidualBlock<Float>.Gradients] = []
        for index in blocks.indices.reversed() {
            let step = blocks[index].backward(gradient!, cache: cache.blocks[index], computesInputGradient: index > 0)
            gradients.append(step.gradients)
            gradient = step.input
        }
        return Gradients(blocks: gradients.reversed())
    }

    /// Calls `rule` for each parameter with its gradient, named `blocks.N.expand.weights` and so on (the network's
    /// block index, as `TrainableEfficientNetLite0.update` names them).
    public mutating func update(with gradients: Gradients, _ rule: ParameterUpdate<Float>) {
        for index in blocks.indices {
            blocks[index].update(with: gradients.blocks[index], prefix: "blocks.\(blocks[index].specification.index).", rule)
        }
    }

    /// The backbone tensors of a model file with these blocks' trained values written over `base`
    /// (`TrainableEfficientNetLite0.blockTensors`: scale multiplied in, identity batch norm carrying the bias).
    public func backboneTensors(over base: [String: SafetensorsFile.Tensor]) -> [String: SafetensorsFile.Tensor] {
        TrainableEfficientNetLite0.blockTensors(blocks, over: base)
    }

    /// The names of the backbone tensors `backboneTensors(over:)` writes, sorted.
    public var trainedTensorNames: [String] { backboneTensors(over: [:]).keys.sorted() }
}
