import Layers

/// A per-channel scale and bias, `Y[…, c] = X[…, c]·scale[c] + bias[c]`: batch normalisation with frozen
/// statistics, folded. In EfficientNet-Lite0 the statistics are folded into the convolution before it
/// (`Layers.BatchNormFolding`), so the network starts with `scale = 1` and `bias` = the folded bias.
///
/// Shapes: input and output `[batch, height, width, channels]` (or any shape whose last dimension is
/// `channels`); scale and bias `[channels]`. Backward: `∂X = ∂Y·scale`, `∂scale = Σ ∂Y·X`, `∂bias = Σ ∂Y`, the sums
/// over every position but the channel.
public struct ChannelScaleBiasLayer<Scalar: BinaryFloatingPoint & Sendable>: Sendable {
    /// `[channels]`.
    public var scale: Tensor<Scalar>
    /// `[channels]`.
    public var bias: Tensor<Scalar>

    /// A layer with the given scale and bias, both `[channels]`.
    public init(scale: Tensor<Scalar>, bias: Tensor<Scalar>) {
        precondition(scale.rank == 1 && bias.shape == scale.shape, "ChannelScaleBiasLayer: scale and bias must be [channels]")
        self.scale = scale
        self.bias = bias
    }

    /// The identity scale with `bias`: a folded batch norm's place after a convolution that absorbed its scale.
    public init(bias: Tensor<Scalar>) {
        self.init(scale: Tensor(shape: bias.shape, repeating: 1), bias: bias)
    }

    /// Channels (the last dimension of input and output).
    public var channels: Int { scale.shape[0] }

    /// What the backward pass reads: the input (for `∂scale`).
    public typealias Cache = InputCache<Scalar>

    /// The loss's gradient with respect to each parameter.
    public struct Gradients: Sendable, Equatable {
        /// `[channels]`.
        public var scale: Tensor<Scalar>
        /// `[channels]`.
        public var bias: Tensor<Scalar>
    }

    /// The layer in another precision.
    public func converted<Other: BinaryFloatingPoint & Sendable>(to _: Other.Type) -> ChannelScaleBiasLayer<Other> {
        ChannelScaleBiasLayer<Other>(scale: scale.converted(), bias: bias.converted())
    }

    private func checkInput(_ input: Tensor<Scalar>) {
        precondition(input.shape.last == channels, "ChannelScaleBiasLayer: input \(input.shape) for \(channels) channels")
    }

    /// The naive reference forward pass.
    public func referenceForward(_ input: Tensor<Scalar>, mode: ForwardMode) -> (output: Tensor<Scalar>, cache: Cache?) {
        checkInput(input)
        var output = input
        for index in 0..<input.count {
            let channel = index % channels
            output.storage[index] = Scalar(Double(input.storage[index]) * Double(scale.storage[channel]) + Double(bias.storage[channel]))
        }
        return (output, mode == .training ? Cache(input: input) : nil)
    }

    /// The naive reference backward pass (double-precision sums).
    public func referenceBackward(
        _ outputGradient: Tensor<Scalar>, cache: Cache,
        computesInputGradient: Bool = true
    ) -> (input: Tensor<Scalar>?, gradients: Gradients) {
        let input = cache.input
        precondition(outputGradient.shape == input.shape, "ChannelScaleBiasLayer: gradient shape")
        var scaleSums = [Double](repeating: 0, count: channels), biasSums = scaleSums
        var inputGradient = computesInputGradient ? outputGradient : nil
        for index in 0..<input.count {
            let channel = index % channels
            let gradient = Double(outputGradient.storage[index])
            scaleSums[channel] += gradient * Double(input.storage[index])
            biasSums[channel] += gradient
            inputGradient?.storage[index] = Scalar(gradient * Double(scale.storage[channel]))
        }
        return (
            inputGradient,
            Gradients(
                scale: Tensor(shape: [channels], storage: scaleSums.map { Scalar($0) }),
                bias: Tensor(shape: [channels], storage: biasSums.map { Scalar($0) }))
        )
    }
}

extension ChannelScaleBiasLayer where Scalar == Float {
    /// The fast forward pass: one pass, channels innermost (`TrainingKernels.scaleBias`). The network's blocks
    /// fold this layer into the convolution before it instead (`FoldedScale`).
    public func forward(
        _ input: Tensor<Float>, mode: ForwardMode,
        kernel: KernelChoice = .automatic
    ) -> (output: Tensor<Float>, cache: Cache?) {
        checkInput(input)
        // `input` is a parameter of this call, alive until it returns.
        let output = Tensor<Float>(shape: input.shape) { output in
            TrainingKernels.scaleBias(
                input.storage.baseAddress, rows: input.count / channels, channels: channels,
                scale: scale.storage.baseAddress, bias: bias.storage.baseAddress, clampsToSix: false,
                residual: nil, output: output.baseAddress!, kernel: kernel)
        }
        return (output, mode == .training ? Cache(input: input) : nil)
    }

    /// The fast backward pass: `∂X` and the per-channel sums in one pass over the pixels.
    public func backward(
        _ outputGradient: Tensor<Float>, cache: Cache, computesInputGradient: Bool = true,
        kernel: KernelChoice = .automatic
    ) -> (input: Tensor<Float>?, gradients: Gradients) {
        let input = cache.input
        precondition(outputGradient.shape == input.shape, "ChannelScaleBiasLayer: gradient shape")
        var scaleGradient = Tensor<Float>(shape: [channels]) { _ in }, biasGradient = scaleGradient
        var inputGradient = computesInputGradient ? Tensor<Float>(shape: input.shape) { _ in } : nil
        // Every tensor read here is a parameter of this call or a property, alive until it returns.
        scaleGradient.withUnsafeMutableBufferPointer { scaleGradient in
            biasGradient.withUnsafeMutableBufferPointer { biasGradient in
                func run(_ target: UnsafeMutablePointer<Float>?) {
                    TrainingKernels.scaleBiasBackward(
                        outputGradient: outputGradient.storage.baseAddress, input: input.storage.baseAddress, rows: input.count / channels,
                        channels: channels, scale: scale.storage.baseAddress, activationOutput: nil, inputGradient: target,
                        scaleGradient: scaleGradient.baseAddress!, biasGradient: biasGradient.baseAddress!, kernel: kernel)
                }
                if inputGradient == nil {
                    run(nil)
                } else {
                    inputGradient!.withUnsafeMutableBufferPointer { run($0.baseAddress!) }
                }
            }
        }
        return (inputGradient, Gradients(scale: scaleGradient, bias: biasGradient))
    }
}
