import Layers

/// An inverted-residual ("MBConv") block with batch norm already folded in:
/// `[1×1 expand + ReLU6] → k×k depthwise + ReLU6 → 1×1 project (linear) → + input when shapes match`.
///
/// Layout: NHWC. input `[batch, height, width, inputChannels]` → expanded `[batch, height, width, expandedChannels]`
/// → depthwise `[batch, outHeight, outWidth, expandedChannels]` → output `[batch, outHeight, outWidth, outputChannels]`.
public struct MBConvBlock: Sendable {
    /// The resolved architecture of this block.
    public let specification: EfficientNetLite0Architecture.Block
    /// 1×1, `[inputChannels, expandedChannels]` weights, ReLU6; nil when the expansion is 1.
    public let expand: PointwiseConvolution?
    /// k×k depthwise, `[k, k, expandedChannels]` weights, TF SAME padding, ReLU6.
    public let depthwise: DepthwiseConvolution2D
    /// 1×1, `[expandedChannels, outputChannels]` weights, no activation.
    public let project: PointwiseConvolution

    /// A block from its folded layers; the layers' channel counts must agree with `specification`.
    public init(
        specification: EfficientNetLite0Architecture.Block, expand: PointwiseConvolution?,
        depthwise: DepthwiseConvolution2D, project: PointwiseConvolution
    ) {
        precondition((expand != nil) == specification.hasExpansion, "MBConvBlock: expand layer presence")
        precondition(
            depthwise.channels == specification.expandedChannels && project.outputChannels == specification.outputChannels,
            "MBConvBlock: layer channels")
        self.specification = specification
        self.expand = expand
        self.depthwise = depthwise
        self.project = project
    }

    /// Output height and width for an input of the given size.
    public func outputSize(inputHeight: Int, inputWidth: Int) -> (height: Int, width: Int) {
        depthwise.outputSize(inputHeight: inputHeight, inputWidth: inputWidth)
    }

    /// Runs the block, fused over row bands when the vector kernels run (see `InvertedResidual`). `expanded`
    /// holds at least `batch·height·width·expandedChannels` floats and `spatial`
    /// `batch·outHeight·outWidth·expandedChannels`; both are scratch. `output` must not overlap `input`. `next` is
    /// the 1×1 layer that runs after this block (its weights are prefetched).
    func forward(
        input: UnsafePointer<Float>, batch: Int, height: Int, width: Int,
        output: UnsafeMutablePointer<Float>,
        expanded: UnsafeMutablePointer<Float>, spatial: UnsafeMutablePointer<Float>, next: PointwiseConvolution?
    ) {
        InvertedResidual.forward(
            expand: expand, depthwise: depthwise, project: project, addsInput: specification.hasResidual,
            input: input, batch: batch, height: height, width: width, output: output,
            expanded: expanded, spatial: spatial, next: next)
    }
}
