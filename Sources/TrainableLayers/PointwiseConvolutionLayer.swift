import Layers
import TensorCore

/// A 1×1 convolution without bias (the `ChannelScaleBiasLayer` after it carries the bias): one matrix product
/// over all pixels of the batch. EfficientNet-Lite0's expand, project and head convolutions.
///
/// Shapes: input `[batch, height, width, inputChannels]` → output `[batch, height, width, outputChannels]`;
/// weights `[inputChannels, outputChannels]` (IO, the transpose of PyTorch's `[out, in, 1, 1]`).
/// Forward: `Y = X·W` with X `[pixels, inputChannels]`. Backward: `∂X = ∂Y·Wᵀ`, `∂W = Xᵀ·∂Y`.
public struct PointwiseConvolutionLayer<Scalar: BinaryFloatingPoint & Sendable>: Sendable {
    /// `[inputChannels, outputChannels]`.
    public var weights: Tensor<Scalar>

    /// A layer with IO weights `[inputChannels, outputChannels]`.
    public init(weights: Tensor<Scalar>) {
        precondition(weights.rank == 2, "PointwiseConvolutionLayer: weights must be [inputChannels, outputChannels]")
        self.weights = weights
    }

    /// Channels of the input.
    public var inputChannels: Int { weights.shape[0] }
    /// Channels of the output.
    public var outputChannels: Int { weights.shape[1] }

    /// What the backward pass reads: the input.
    public typealias Cache = InputCache<Scalar>

    /// The loss's gradient with respect to each parameter, laid out like `weights`.
    public typealias Gradients = WeightGradients<Scalar>

    /// The layer in another precision.
    public func converted<Other: BinaryFloatingPoint & Sendable>(to _: Other.Type) -> PointwiseConvolutionLayer<Other> {
        PointwiseConvolutionLayer<Other>(weights: weights.converted())
    }

    private func checkInput(_ input: Tensor<Scalar>) {
        precondition(
            input.nhwc.channels == inputChannels,
            "PointwiseConvolutionLayer: input \(input.shape) for \(inputChannels) input channels")
    }

    /// The naive reference forward pass: one double-precision dot product per output value.
    public func referenceForward(_ input: Tensor<Scalar>, mode: ForwardMode) -> (output: Tensor<Scalar>, cache: Cache?) {
        checkInput(input)
        let (batch, height, width, _) = input.nhwc
        let pixels = batch * height * width, inputs = inputChannels, outputs = outputChannels
        // Y[p, o] = Σ_i X[p, i]·W[i, o]
        let output: [Scalar] = referenceProduct(
            rows: pixels, columns: outputs, depth: inputs,
            { p, i in Double(input.storage[p * inputs + i]) },
            { i, o in Double(weights.storage[i * outputs + o]) })
        return (Tensor(shape: [batch, height, width, outputs], storage: output), mode == .training ? Cache(input: input) : nil)
    }

    /// The naive reference backward pass. Returns `∂input` (nil unless `computesInputGradient`) and `∂weights`.
    public func referenceBackward(
        _ outputGradient: Tensor<Scalar>, cache: Cache,
        computesInputGradient: Bool = true
    ) -> (input: Tensor<Scalar>?, gradients: Gradients) {
        let input = cache.input
        let (batch, height, width, _) = input.nhwc
        precondition(outputGradient.shape == [batch, height, width, outputChannels], "PointwiseConvolutionLayer: gradient shape")
        let pixels = batch * height * width, inputs = inputChannels, outputs = outputChannels
        // ∂W[i, o] = Σ_p X[p, i]·∂Y[p, o]
        let weightGradient: [Scalar] = referenceProduct(
            rows: inputs, columns: outputs, depth: pixels,
            { i, p in Double(input.storage[p * inputs + i]) },
            { p, o in Double(outputGradient.storage[p * outputs + o]) })
        var inputGradient: Tensor<Scalar>?
        if computesInputGradient {
            // ∂X[p, i] = Σ_o ∂Y[p, o]·W[i, o]
            inputGradient = Tensor(
                shape: input.shape,
                storage: referenceProduct(
                    rows: pixels, columns: inputs, depth: outputs,
                    { p, o in Double(outputGradient.storage[p * outputs + o]) },
                    { o, i in Double(weights.storage[i * outputs + o]) }))
        }
        return (inputGradient, Gradients(weights: Tensor(shape: weights.shape, storage: weightGradient)))
    }
}

extension PointwiseConvolutionLayer where Scalar == Float {
    /// The fast forward pass: `Layers.PointwiseConvolution`'s vector kernels (AVX-512/AVX2, weights packed per
    /// call, which costs little beside a batch's pixels), or BLAS on the portable path.
    public func forward(
        _ input: Tensor<Float>, mode: ForwardMode,
        kernel: KernelChoice = .automatic
    ) -> (output: Tensor<Float>, cache: Cache?) {
        checkInput(input)
        let (batch, height, width, _) = input.nhwc
        let output = Tensor<Float>(shape: [batch, height, width, outputChannels]) { output in
            input.withUnsafeBufferPointer { input in
                TrainingKernels.pointwiseProduct(
                    input.baseAddress!, pixels: batch * height * width, weights: weights.scalars,
                    inputs: inputChannels, outputs: outputChannels, kernel: kernel, output: output.baseAddress!)
            }
        }
        return (output, mode == .training ? Cache(input: input) : nil)
    }

    /// The fast backward pass: `∂X = ∂Y·Wᵀ` through the same product as the forward pass (with the transposed
    /// weights), `∂W = Xᵀ·∂Y` through `TrainingKernels.weightGradient`.
    public func backward(
        _ outputGradient: Tensor<Float>, cache: Cache, computesInputGradient: Bool = true,
        kernel: KernelChoice = .automatic
    ) -> (input: Tensor<Float>?, gradients: Gradients) {
        let transposed =
            computesInputGradient
            ? weights.withUnsafeBufferPointer {
                TrainingKernels.transposed($0.baseAddress!, rows: inputChannels, columns: outputChannels)
            } : nil
        return backward(outputGradient, input: cache.input, transposedWeights: transposed, kernel: kernel)
    }

    /// The backward pass with the weights the forward pass multiplied by, transposed to `[outputChannels,
    /// inputChannels]` (nil: no input gradient).
    private func backward(
        _ outputGradient: Tensor<Float>, input: Tensor<Float>, transposedWeights: [Float]?,
        kernel: KernelChoice
    ) -> (input: Tensor<Float>?, gradients: Gradients) {
        let (batch, height, width, _) = input.nhwc
        precondition(outputGradient.shape == [batch, height, width, outputChannels], "PointwiseConvolutionLayer: gradient shape")
        let pixels = batch * height * width
        let weightGradient = Tensor<Float>(shape: weights.shape) { weightGradient in
            input.withUnsafeBufferPointer { input in
                outputGradient.withUnsafeBufferPointer { outputGradient in
                    TrainingKernels.weightGradient(
                        input: input.baseAddress!, outputGradient: outputGradient.baseAddress!, pixels: pixels,
                        inputs: inputChannels, outputs: outputChannels, kernel: kernel,
                        weightGradient: weightGradient.baseAddress!)
                }
            }
        }
        var inputGradient: Tensor<Float>?
        if let transposed = transposedWeights {
            inputGradient = Tensor<Float>(shape: input.shape) { inputGradient in
                outputGradient.withUnsafeBufferPointer { outputGradient in
                    TrainingKernels.pointwiseProduct(
                        outputGradient.baseAddress!, pixels: pixels, weights: transposed, inputs: outputChannels,
                        outputs: inputChannels, kernel: kernel, output: inputGradient.baseAddress!)
                }
            }
        }
        return (inputGradient, Gradients(weights: weightGradient))
    }

    /// `activation(input·(weights·scale) + bias) + residual`: the convolution and the scale-bias after it in one
    /// pass of the inference kernels (see `FoldedScale`).
    func fusedForward(
        _ input: Tensor<Float>, _ scaleBias: ChannelScaleBiasLayer<Float>, activation: Activation,
        residual: Tensor<Float>?, kernel: KernelChoice
    ) -> Tensor<Float> {
        checkInput(input)
        let (batch, height, width, _) = input.nhwc
        precondition(residual == nil || residual!.shape == [batch, height, width, outputChannels], "PointwiseConvolutionLayer: residual")
        let layer = PointwiseConvolution(
            weightsIO: FoldedScale.fold(weights, scaleBias.scale), bias: scaleBias.bias.scalars,
            inputChannels: inputChannels, outputChannels: outputChannels, activation: activation)
        // `input` and `residual` are parameters of this call, alive until it returns.
        return Tensor<Float>(shape: [batch, height, width, outputChannels]) { output in
            layer.forward(
                input: input.storage.baseAddress, pixelCount: batch * height * width, output: output.baseAddress!,
                residual: residual?.storage.baseAddress, kernel: kernel)
        }
    }

    /// The backward pass of `fusedForward` from `preActivationGradient` (the gradient before its activation) and
    /// that gradient's per-channel sum (the bias gradient): `G = inputᵀ·∂z` gives `∂weights` and `∂scale`, and
    /// `∂input = ∂z·(weights·scale)ᵀ`.
    func fusedBackward(
        _ preActivationGradient: Tensor<Float>, biasGradient: Tensor<Float>, input: Tensor<Float>,
        _ scaleBias: ChannelScaleBiasLayer<Float>, computesInputGradient: Bool,
        kernel: KernelChoice
    ) -> (input: Tensor<Float>?, gradients: Gradients, scaleBias: ChannelScaleBiasLayer<Float>.Gradients) {
        let transposed = computesInputGradient ? FoldedScale.foldedTransposed(weights, scaleBias.scale) : nil
        let step = backward(preActivationGradient, input: input, transposedWeights: transposed, kernel: kernel)
        let unfolded = FoldedScale.unfold(step.gradients.weights, weights: weights, scale: scaleBias.scale)
        return (step.input, Gradients(weights: unfolded.weights), .init(scale: unfolded.scale, bias: biasGradient))
    }
}
