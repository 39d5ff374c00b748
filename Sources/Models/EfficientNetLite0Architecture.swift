/// EfficientNet-Lite0's layer plan as data.
///
/// Source: the published EfficientNet-Lite0 (the stage table of EfficientNet-B0, Tan and Le 2019, arXiv:1905.11946,
/// table 1; what Lite changes, TensorFlow's release in github.com/tensorflow/tpu, models/official/efficientnet/lite),
/// as restated and checked against the pretrained weights by the golden generator
/// `scripts/fixtures/make-efficientnet-fixtures.py`: a 3×3 stride-2 stem to 32 channels, 16 inverted-residual
/// blocks in 7 stages, a 1×1 head to 1280 channels, ReLU6 everywhere, no squeeze-excite, batch-norm ε = 1e-3,
/// TensorFlow SAME padding.
public enum EfficientNetLite0Architecture {
    /// One stage: `repeats` blocks; only the first uses `stride` and changes the channel count.
    public struct Stage: Sendable, Equatable {
        public let repeats: Int
        public let kernelSize: Int
        public let stride: Int
        public let expansion: Int
        public let outputChannels: Int
    }

    /// The stage table (repeats, kernel, stride, expansion, output channels).
    public static let stages: [Stage] = [
        Stage(repeats: 1, kernelSize: 3, stride: 1, expansion: 1, outputChannels: 16),
        Stage(repeats: 2, kernelSize: 3, stride: 2, expansion: 6, outputChannels: 24),
        Stage(repeats: 2, kernelSize: 5, stride: 2, expansion: 6, outputChannels: 40),
        Stage(repeats: 3, kernelSize: 3, stride: 2, expansion: 6, outputChannels: 80),
        Stage(repeats: 3, kernelSize: 5, stride: 1, expansion: 6, outputChannels: 112),
        Stage(repeats: 4, kernelSize: 5, stride: 2, expansion: 6, outputChannels: 192),
        Stage(repeats: 1, kernelSize: 3, stride: 1, expansion: 6, outputChannels: 320),
    ]

    /// RGB input.
    public static let inputChannels = 3
    /// Output channels of the 3×3 stride-2 stem (Lite variants do not scale it).
    public static let stemChannels = 32
    /// Kernel and stride of the stem.
    public static let stemKernelSize = 3, stemStride = 2
    /// Output channels of the 1×1 head convolution: the feature dimension.
    public static let headChannels = 1280
    /// ImageNet classes of the pretrained classifier.
    public static let classCount = 1000
    /// Batch-norm epsilon of every normalisation layer.
    public static let batchNormEpsilon: Float = 1e-3

    /// One inverted-residual block, with its stage's settings resolved.
    public struct Block: Sendable, Equatable {
        /// Position in `_blocks.N` of the weight names.
        public let index: Int
        public let inputChannels: Int
        /// `inputChannels · expansion`: channels of the depthwise convolution.
        public let expandedChannels: Int
        public let outputChannels: Int
        public let kernelSize: Int
        public let stride: Int
        /// Expansion 1 has no 1×1 expand convolution (and no `_expand_conv`/`_bn0` weights).
        public var hasExpansion: Bool { expandedChannels != inputChannels }
        /// The input is added to the output when the shape is unchanged.
        public var hasResidual: Bool { stride == 1 && inputChannels == outputChannels }

        /// A block with explicit settings (the table below resolves the network's; tests build small ones).
        public init(index: Int, inputChannels: Int, expandedChannels: Int, outputChannels: Int, kernelSize: Int, stride: Int) {
            self.index = index
            self.inputChannels = inputChannels
            self.expandedChannels = expandedChannels
            self.outputChannels = outputChannels
            self.kernelSize = kernelSize
            self.stride = stride
        }
    }

    /// All 16 blocks in order.
    public static let blocks: [Block] = {
        var blocks: [Block] = []
        var channels = stemChannels
        for stage in stages {
            for repeatIndex in 0..<stage.repeats {
                blocks.append(
                    Block(
                        index: blocks.count, inputChannels: channels, expandedChannels: channels * stage.expansion,
                        outputChannels: stage.outputChannels, kernelSize: stage.kernelSize,
                        stride: repeatIndex == 0 ? stage.stride : 1))
                channels = stage.outputChannels
            }
        }
        return blocks
    }()
}
