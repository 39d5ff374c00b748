import Layers

/// A depthwise convolution without bias: each channel convolved with its own square kernel, TensorFlow SAME
/// padding (`Layers.PaddingRule`, the rule and the arithmetic the inference kernels use). EfficientNet-Lite0's
/// 3×3 and 5×5 block convolutions, at stride 1 or 2.
///
/// Shapes: input `[batch, height, width, channels]` → output `[batch, outHeight, outWidth, channels]`, where
/// `outHeight = ceil(height / stride)` under SAME padding; weights `[kernelSize, kernelSize, channels]` (HWC).
/// Forward: `Y[n, oy, ox, c] = Σ_{ky, kx} X[n, oy·s − top + ky, ox·s − left + kx, c] · W[ky, kx, c]`, taps outside
/// the image reading zero. Backward: `∂X` scatters each `∂Y` back through the same taps; `∂W[ky, kx, c]` sums
/// `X·∂Y` over every output pixel the tap touched.
public struct DepthwiseConvolutionLayer<Scalar: BinaryFloatingPoint & Sendable>: SquareWindowConvolution, Sendable {
    /// `[kernelSize, kernelSize, channels]`.
    public var weights: Tensor<Scalar>
    /// Step between windows, the same on both axes.
    public let stride: Int
    /// How the input is padded.
    public let padding: PaddingRule

    /// A layer with HWC weights `[kernelSize, kernelSize, channels]`.
    public init(weights: Tensor<Scalar>, stride: Int, padding: PaddingRule = .tensorFlowSame) {
        Self.checkWindow(
            weights: weights, rank: 3, stride: stride, layer: "DepthwiseConvolutionLayer",
            layout: "[kernelSize, kernelSize, channels]")
        self.weights = weights
        self.stride = stride
        self.padding = padding
    }

    /// Channels of input and output.
    public var channels: Int { weights.shape[2] }
    /// Channels of the input: `channels`.
    public var inputChannels: Int { channels }
    /// Channels of the output: `channels`.
    public var outputChannels: Int { channels }

    /// The layer in another precision.
    public func converted<Other: BinaryFloatingPoint & Sendable>(to _: Other.Type) -> DepthwiseConvolutionLayer<Other> {
        DepthwiseConvolutionLayer<Other>(weights: weights.converted(), stride: stride, padding: padding)
    }

    /// The naive reference forward pass: every output value from its in-bounds taps, summed in double precision.
    public func referenceForward(_ input: Tensor<Scalar>, mode: ForwardMode) -> (output: Tensor<Scalar>, cache: Cache?) {
        checkInput(input)
        let (batch, height, width, c) = input.nhwc
        let (_, outputHeight, outputWidth) = geometry(height: height, width: width)
        var sums = [Double](repeating: 0, count: batch * outputHeight * outputWidth * c)
        forEachTapInsideImage(batch: batch, height: height, width: width) { outputPixel, tap, inputPixel in
            for channel in 0..<c {
                sums[outputPixel * c + channel] += Double(input.storage[inputPixel * c + channel]) * Double(weights.storage[tap * c + channel])
            }
        }
        let output = Tensor(shape: [batch, outputHeight, outputWidth, c], storage: sums.map { Scalar($0) })
        return (output, mode == .training ? Cache(input: input) : nil)
    }

    /// The naive reference backward pass, tap by tap in double precision. Returns `∂input` (nil unless
    /// `computesInputGradient`) and `∂weights`.
    public func referenceBackward(
        _ outputGradient: Tensor<Scalar>, cache: Cache,
        computesInputGradient: Bool = true
    ) -> (input: Tensor<Scalar>?, gradients: Gradients) {
        let input = cache.input
        checkOutputGradient(outputGradient, input: input)
        let (batch, height, width, c) = input.nhwc
        var inputSums = [Double](repeating: 0, count: computesInputGradient ? input.count : 0)
        var weightSums = [Double](repeating: 0, count: weights.count)
        forEachTapInsideImage(batch: batch, height: height, width: width) { outputPixel, tap, inputPixel in
            for channel in 0..<c {
                let gradient = Double(outputGradient.storage[outputPixel * c + channel])
                weightSums[tap * c + channel] += Double(input.storage[inputPixel * c + channel]) * gradient
                if computesInputGradient {
                    inputSums[inputPixel * c + channel] += Double(weights.storage[tap * c + channel]) * gradient
                }
            }
        }
        let inputGradient = computesInputGradient ? Tensor(shape: input.shape, storage: inputSums.map { Scalar($0) }) : nil
        return (inputGradient, Gradients(weights: Tensor(shape: weights.shape, storage: weightSums.map { Scalar($0) })))
    }
}

extension DepthwiseConvolutionLayer where Scalar == Float {
    /// The fast forward pass: `Layers.DepthwiseConvolution2D`'s kernels with a zero bias and no activation.
    public func forward(
        _ input: Tensor<Float>, mode: ForwardMode,
        kernel: KernelChoice = .automatic
    ) -> (output: Tensor<Float>, cache: Cache?) {
        let layer = DepthwiseConvolution2D(
            weightsHWC: weights.scalars, bias: [Float](repeating: 0, count: channels), channels: channels,
            kernelSize: kernelSize, stride: stride, padding: padding, activation: .none)
        return (inferenceForward(input, through: layer, kernel: kernel), mode == .training ? Cache(input: input) : nil)
    }

    /// The fast backward pass (`TrainingKernels.depthwiseBackward`: gathered per input pixel, vectorised over
    /// channels).
    public func backward(
        _ outputGradient: Tensor<Float>, cache: Cache, computesInputGradient: Bool = true,
        kernel: KernelChoice = .automatic
    ) -> (input: Tensor<Float>?, gradients: Gradients) {
        let step = backward(
            outputGradient, input: cache.input, weights: weights, masksInputGradient: false,
            computesInputGradient: computesInputGradient, kernel: kernel)
        return (step.input, Gradients(weights: step.weights))
    }

    /// `ReLU6(depthwise(input, weights·scale) + bias)`: the convolution and the scale-bias after it in one pass
    /// (see `FoldedScale`).
    func fusedForward(_ input: Tensor<Float>, _ scaleBias: ChannelScaleBiasLayer<Float>, kernel: KernelChoice) -> Tensor<Float> {
        let layer = DepthwiseConvolution2D(
            weightsHWC: FoldedScale.fold(weights, scaleBias.scale), bias: scaleBias.bias.scalars,
            channels: channels, kernelSize: kernelSize, stride: stride, padding: padding,
            activation: .relu6)
        return inferenceForward(input, through: layer, kernel: kernel)
    }

    /// The backward pass of `fusedForward` from `preActivationGradient` (the gradient before its ReLU6) and that
    /// gradient's per-channel sum (its bias gradient). With `masksInputGradient` the input is itself a ReLU6
    /// output and the returned input gradient is the one before that ReLU6, with its per-channel sum.
    func fusedBackward(
        _ preActivationGradient: Tensor<Float>, biasGradient: Tensor<Float>, input: Tensor<Float>,
        _ scaleBias: ChannelScaleBiasLayer<Float>, masksInputGradient: Bool, computesInputGradient: Bool,
        kernel: KernelChoice
    ) -> (
        input: Tensor<Float>?, inputGradientSum: Tensor<Float>?, gradients: Gradients,
        scaleBias: ChannelScaleBiasLayer<Float>.Gradients
    ) {
        let folded = Tensor(shape: weights.shape, storage: FoldedScale.fold(weights, scaleBias.scale))
        let step = backward(
            preActivationGradient, input: input, weights: folded, masksInputGradient: masksInputGradient,
            computesInputGradient: computesInputGradient, kernel: kernel)
        let unfolded = FoldedScale.unfold(step.weights, weights: weights, scale: scaleBias.scale)
        return (
            step.input, step.inputGradientSum, Gradients(weights: unfolded.weights),
            .init(scale: unfolded.scale, bias: biasGradient)
        )
    }

    /// The kernel call shared by both backward passes; `weights` are the ones the forward pass multiplied by.
    private func backward(
        _ outputGradient: Tensor<Float>, input: Tensor<Float>, weights: Tensor<Float>, masksInputGradient: Bool,
        computesInputGradient: Bool,
        kernel: KernelChoice
    ) -> (input: Tensor<Float>?, inputGradientSum: Tensor<Float>?, weights: Tensor<Float>) {
        let (batch, height, width, c) = input.nhwc
        let (pad, outputHeight, outputWidth) = geometry(height: height, width: width)
        checkOutputGradient(outputGradient, input: input)
        let geometry = TrainingKernels.DepthwiseGeometry(
            batch: batch, height: height, width: width, channels: c, kernelSize: kernelSize,
            stride: stride, padding: pad, outputHeight: outputHeight, outputWidth: outputWidth)
        var inputGradient = computesInputGradient ? Tensor<Float>(shape: input.shape) { _ in } : nil
        var weightGradient = Tensor<Float>(shape: weights.shape) { _ in }
        var sums = [Double](repeating: 0, count: masksInputGradient ? c : 0)
        // Every tensor read here is a parameter of this call, alive until it returns.
        weightGradient.withUnsafeMutableBufferPointer { weightGradient in
            sums.withUnsafeMutableBufferPointer { sums in
                func run(_ target: UnsafeMutablePointer<Float>?) {
                    TrainingKernels.depthwiseBackward(
                        input: input.storage.baseAddress, outputGradient: outputGradient.storage.baseAddress,
                        weights: weights.storage.baseAddress, geometry: geometry, kernel: kernel,
                        inputGradient: target, masksInputGradient: masksInputGradient,
                        inputGradientSum: masksInputGradient ? sums.baseAddress! : nil,
                        weightGradient: weightGradient.baseAddress!)
                }
                if inputGradient == nil {
                    run(nil)
                } else {
                    inputGradient!.withUnsafeMutableBufferPointer { run($0.baseAddress!) }
                }
            }
        }
        return (inputGradient, masksInputGradient ? Tensor(shape: [c], storage: sums.map { Float($0) }) : nil, weightGradient)
    }
}
