import Layers
import Models

/// One trainable inverted-residual ("MBConv") block, composed of the layers of this module:
/// `[1×1 expand → scale-bias → ReLU6] → k×k depthwise → scale-bias → ReLU6 → 1×1 project → scale-bias → (+ input)`.
///
/// Shapes (NHWC): input `[batch, height, width, inputChannels]` → expanded `[batch, height, width, expandedChannels]`
/// → depthwise `[batch, outHeight, outWidth, expandedChannels]` → output `[batch, outHeight, outWidth,
/// outputChannels]`. The expand layers are absent when the expansion is 1; the input is added when the stride is 1
/// and the channel counts match (`specification.hasResidual`).
///
/// The reference passes run the layers one by one, exactly as composed above. The fast passes fold each scale-bias
/// into the convolution before it (`FoldedScale`): each convolution runs with its bias, ReLU6 and residual fused
/// (the inference kernels), the convolutions' own outputs are never stored, and the expand layer's ReLU6 backward
/// runs inside the depthwise backward pass.
public struct InvertedResidualBlock<Scalar: BinaryFloatingPoint & Sendable>: Sendable {
    /// The block's place in EfficientNet-Lite0 (channels, kernel, stride, residual).
    public let specification: EfficientNetLite0Architecture.Block
    /// 1×1, `[inputChannels, expandedChannels]`; nil when the expansion is 1.
    public var expand: PointwiseConvolutionLayer<Scalar>?
    /// `[expandedChannels]`; nil when the expansion is 1.
    public var expandScaleBias: ChannelScaleBiasLayer<Scalar>?
    /// k×k, `[k, k, expandedChannels]`, TF SAME padding.
    public var depthwise: DepthwiseConvolutionLayer<Scalar>
    /// `[expandedChannels]`.
    public var depthwiseScaleBias: ChannelScaleBiasLayer<Scalar>
    /// 1×1, `[expandedChannels, outputChannels]`.
    public var project: PointwiseConvolutionLayer<Scalar>
    /// `[outputChannels]`.
    public var projectScaleBias: ChannelScaleBiasLayer<Scalar>

    /// A block from its layers, whose sizes must agree with `specification`.
    public init(
        specification: EfficientNetLite0Architecture.Block,
        expand: (PointwiseConvolutionLayer<Scalar>, ChannelScaleBiasLayer<Scalar>)?,
        depthwise: DepthwiseConvolutionLayer<Scalar>, depthwiseScaleBias: ChannelScaleBiasLayer<Scalar>,
        project: PointwiseConvolutionLayer<Scalar>, projectScaleBias: ChannelScaleBiasLayer<Scalar>
    ) {
        let block = specification
        precondition((expand != nil) == block.hasExpansion, "InvertedResidualBlock: expand layers iff the expansion is not 1")
        if let (convolution, scaleBias) = expand {
            precondition(
                convolution.weights.shape == [block.inputChannels, block.expandedChannels]
                    && scaleBias.channels == block.expandedChannels, "InvertedResidualBlock: expand sizes")
        }
        precondition(
            depthwise.weights.shape == [block.kernelSize, block.kernelSize, block.expandedChannels]
                && depthwise.stride == block.stride && depthwiseScaleBias.channels == block.expandedChannels,
            "InvertedResidualBlock: depthwise sizes")
        precondition(
            project.weights.shape == [block.expandedChannels, block.outputChannels]
                && projectScaleBias.channels == block.outputChannels, "InvertedResidualBlock: project sizes")
        self.specification = specification
        self.expand = expand?.0
        self.expandScaleBias = expand?.1
        self.depthwise = depthwise
        self.depthwiseScaleBias = depthwiseScaleBias
        self.project = project
        self.projectScaleBias = projectScaleBias
    }

    /// What the backward pass reads: the input and the two ReLU6 outputs (names follow the diagram above).
    public struct Cache: Sendable {
        /// The block's input.
        public let input: Tensor<Scalar>
        /// The depthwise convolution's input: ReLU6 of the scaled expansion, or the block's input.
        public let expandedActivated: Tensor<Scalar>
        /// The project convolution's input.
        public let depthwiseActivated: Tensor<Scalar>
        /// The convolutions' outputs before their scale-bias: only the reference passes keep and read them.
        public let preActivations: PreActivations?

        /// The convolutions' outputs before their scale-bias.
        public struct PreActivations: Sendable {
            /// The expand convolution's output (nil without expansion).
            public let expanded: Tensor<Scalar>?
            /// The depthwise convolution's output.
            public let depthwiseOutput: Tensor<Scalar>
            /// The project convolution's output.
            public let projected: Tensor<Scalar>
        }
    }

    /// The loss's gradient with respect to each layer's parameters.
    public struct Gradients: Sendable, Equatable {
        /// Nil without expansion.
        public var expand: PointwiseConvolutionLayer<Scalar>.Gradients?
        /// Nil without expansion.
        public var expandScaleBias: ChannelScaleBiasLayer<Scalar>.Gradients?
        /// The depthwise convolution's.
        public var depthwise: DepthwiseConvolutionLayer<Scalar>.Gradients
        /// The depthwise scale-bias's.
        public var depthwiseScaleBias: ChannelScaleBiasLayer<Scalar>.Gradients
        /// The project convolution's.
        public var project: PointwiseConvolutionLayer<Scalar>.Gradients
        /// The project scale-bias's.
        public var projectScaleBias: ChannelScaleBiasLayer<Scalar>.Gradients

        /// Adds another part of the batch's gradients.
        public static func += (left: inout Self, right: Self) {
            if left.expand != nil, let expand = right.expand, let scaleBias = right.expandScaleBias {
                left.expand! += expand
                left.expandScaleBias! += scaleBias
            }
            left.depthwise += right.depthwise
            left.depthwiseScaleBias += right.depthwiseScaleBias
            left.project += right.project
            left.projectScaleBias += right.projectScaleBias
        }
    }

    /// Calls `rule` for each parameter with its gradient, named `prefix` + layer + parameter.
    public mutating func update(with gradients: Gradients, prefix: String = "", _ rule: ParameterUpdate<Scalar>) {
        if let expandGradients = gradients.expand, let scaleBiasGradients = gradients.expandScaleBias {
            expand?.update(with: expandGradients, prefix: prefix + "expand.", rule)
            expandScaleBias?.update(with: scaleBiasGradients, prefix: prefix + "expandScaleBias.", rule)
        }
        depthwise.update(with: gradients.depthwise, prefix: prefix + "depthwise.", rule)
        depthwiseScaleBias.update(with: gradients.depthwiseScaleBias, prefix: prefix + "depthwiseScaleBias.", rule)
        project.update(with: gradients.project, prefix: prefix + "project.", rule)
        projectScaleBias.update(with: gradients.projectScaleBias, prefix: prefix + "projectScaleBias.", rule)
    }

    /// The block in another precision.
    public func converted<Other: BinaryFloatingPoint & Sendable>(to other: Other.Type) -> InvertedResidualBlock<Other> {
        var expandLayers: (PointwiseConvolutionLayer<Other>, ChannelScaleBiasLayer<Other>)?
        if let expand, let expandScaleBias { expandLayers = (expand.converted(to: other), expandScaleBias.converted(to: other)) }
        return InvertedResidualBlock<Other>(
            specification: specification, expand: expandLayers,
            depthwise: depthwise.converted(to: other), depthwiseScaleBias: depthwiseScaleBias.converted(to: other),
            project: project.converted(to: other), projectScaleBias: projectScaleBias.converted(to: other))
    }

    private func checkInput(_ input: Tensor<Scalar>) {
        precondition(
            input.nhwc.channels == specification.inputChannels,
            "InvertedResidualBlock \(specification.index): input \(input.shape) for \(specification.inputChannels) channels")
    }

    // MARK: Reference

    /// The reference forward pass: the reference layers one after another.
    public func referenceForward(_ input: Tensor<Scalar>, mode: ForwardMode) -> (output: Tensor<Scalar>, cache: Cache?) {
        checkInput(input)
        let activation = ReLU6Layer<Scalar>()
        var expanded: Tensor<Scalar>?
        var expandedActivated = input
        if let expand, let expandScaleBias {
            expanded = expand.referenceForward(input, mode: .inference).output
            let scaled = expandScaleBias.referenceForward(expanded!, mode: .inference).output
            expandedActivated = activation.referenceForward(scaled, mode: .inference).output
        }
        let depthwiseOutput = depthwise.referenceForward(expandedActivated, mode: .inference).output
        let depthwiseScaled = depthwiseScaleBias.referenceForward(depthwiseOutput, mode: .inference).output
        let depthwiseActivated = activation.referenceForward(depthwiseScaled, mode: .inference).output
        let projected = project.referenceForward(depthwiseActivated, mode: .inference).output
        var output = projectScaleBias.referenceForward(projected, mode: .inference).output
        if specification.hasResidual { output = ResidualAddLayer<Scalar>().referenceForward(output, input) }
        let cache = Cache(
            input: input, expandedActivated: expandedActivated, depthwiseActivated: depthwiseActivated,
            preActivations: .init(expanded: expanded, depthwiseOutput: depthwiseOutput, projected: projected))
        return (output, mode == .training ? cache : nil)
    }

    /// The reference backward pass: the reference layers' backward passes in reverse order.
    public func referenceBackward(
        _ outputGradient: Tensor<Scalar>, cache: Cache,
        computesInputGradient: Bool = true
    ) -> (input: Tensor<Scalar>?, gradients: Gradients) {
        guard let preActivations = cache.preActivations else {
            preconditionFailure("InvertedResidualBlock.referenceBackward needs the cache of referenceForward")
        }
        let activation = ReLU6Layer<Scalar>()
        let projectScaleBiasStep = projectScaleBias.referenceBackward(outputGradient, cache: .init(input: preActivations.projected))
        let projectStep = project.referenceBackward(projectScaleBiasStep.input!, cache: .init(input: cache.depthwiseActivated))
        let depthwiseActivationGradient = activation.referenceBackward(projectStep.input!, cache: .init(output: cache.depthwiseActivated))
        let depthwiseScaleBiasStep = depthwiseScaleBias.referenceBackward(
            depthwiseActivationGradient,
            cache: .init(input: preActivations.depthwiseOutput))
        let needsDepthwiseInput = computesInputGradient || expand != nil
        let depthwiseStep = depthwise.referenceBackward(
            depthwiseScaleBiasStep.input!, cache: .init(input: cache.expandedActivated),
            computesInputGradient: needsDepthwiseInput)
        var gradients = Gradients(
            expand: nil, expandScaleBias: nil, depthwise: depthwiseStep.gradients,
            depthwiseScaleBias: depthwiseScaleBiasStep.gradients, project: projectStep.gradients,
            projectScaleBias: projectScaleBiasStep.gradients)
        var inputGradient = depthwiseStep.input
        if let expand, let expandScaleBias, let expanded = preActivations.expanded {
            let expandActivationGradient = activation.referenceBackward(depthwiseStep.input!, cache: .init(output: cache.expandedActivated))
            let expandScaleBiasStep = expandScaleBias.referenceBackward(expandActivationGradient, cache: .init(input: expanded))
            let expandStep = expand.referenceBackward(
                expandScaleBiasStep.input!, cache: .init(input: cache.input),
                computesInputGradient: computesInputGradient)
            gradients.expand = expandStep.gradients
            gradients.expandScaleBias = expandScaleBiasStep.gradients
            inputGradient = expandStep.input
        }
        if specification.hasResidual, computesInputGradient, let gradient = inputGradient {
            // The skip connection's share (`ResidualAddLayer.backward`: the output gradient itself) joins the main path's.
            inputGradient = ResidualAddLayer<Scalar>().referenceForward(gradient, ResidualAddLayer<Scalar>().backward(outputGradient).second)
        }
        return (computesInputGradient ? inputGradient : nil, gradients)
    }
}

extension InvertedResidualBlock where Scalar == Float {
    /// The fast forward pass: three fused convolutions (`FoldedScale`), the residual added in the project's epilogue.
    public func forward(
        _ input: Tensor<Float>, mode: ForwardMode,
        kernel: KernelChoice = .automatic
    ) -> (output: Tensor<Float>, cache: Cache?) {
        checkInput(input)
        var expandedActivated = input
        if let expand, let expandScaleBias {
            expandedActivated = expand.fusedForward(input, expandScaleBias, activation: .relu6, residual: nil, kernel: kernel)
        }
        let depthwiseActivated = depthwise.fusedForward(expandedActivated, depthwiseScaleBias, kernel: kernel)
        let output = project.fusedForward(
            depthwiseActivated, projectScaleBias, activation: .none,
            residual: specification.hasResidual ? input : nil, kernel: kernel)
        guard mode == .training else { return (output, nil) }
        return (
            output,
            Cache(
                input: input, expandedActivated: expandedActivated, depthwiseActivated: depthwiseActivated,
                preActivations: nil)
        )
    }

    /// The fast backward pass: per fused convolution, the gradient before its activation (the expand layer's
    /// computed inside the depthwise pass), then the folded weights' gradient unfolded into weights and scale.
    public func backward(
        _ outputGradient: Tensor<Float>, cache: Cache, computesInputGradient: Bool = true,
        kernel: KernelChoice = .automatic
    ) -> (input: Tensor<Float>?, gradients: Gradients) {
        let projectGradient = FoldedScale.preActivationGradient(outputGradient, activated: nil, kernel: kernel)
        let projectStep = project.fusedBackward(
            projectGradient.gradient, biasGradient: projectGradient.biasGradient,
            input: cache.depthwiseActivated, projectScaleBias, computesInputGradient: true, kernel: kernel)
        let depthwiseGradient = FoldedScale.preActivationGradient(projectStep.input!, activated: cache.depthwiseActivated, kernel: kernel)
        let depthwiseStep = depthwise.fusedBackward(
            depthwiseGradient.gradient, biasGradient: depthwiseGradient.biasGradient,
            input: cache.expandedActivated, depthwiseScaleBias, masksInputGradient: expand != nil,
            computesInputGradient: computesInputGradient || expand != nil, kernel: kernel)
        var gradients = Gradients(
            expand: nil, expandScaleBias: nil, depthwise: depthwiseStep.gradients,
            depthwiseScaleBias: depthwiseStep.scaleBias, project: projectStep.gradients,
            projectScaleBias: projectStep.scaleBias)
        var inputGradient = depthwiseStep.input
        if let expand, let expandScaleBias, let expandGradient = depthwiseStep.input, let expandBiasGradient = depthwiseStep.inputGradientSum {
            let expandStep = expand.fusedBackward(
                expandGradient, biasGradient: expandBiasGradient, input: cache.input, expandScaleBias,
                computesInputGradient: computesInputGradient, kernel: kernel)
            gradients.expand = expandStep.gradients
            gradients.expandScaleBias = expandStep.scaleBias
            inputGradient = expandStep.input
        }
        if specification.hasResidual, computesInputGradient {
            inputGradient! += outputGradient
        }
        return (computesInputGradient ? inputGradient : nil, gradients)
    }
}
