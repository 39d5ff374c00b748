import TensorCore

/// A fully connected layer, `Y = X·Wᵀ + b`: the classifier on top of the features.
///
/// Shapes: input `[batch, inputCount]` → output `[batch, outputCount]`; weights `[outputCount, inputCount]`
/// (PyTorch's `nn.Linear` layout, as `Layers.Dense` keeps it), bias `[outputCount]`.
/// Backward: `∂X = ∂Y·W`, `∂W = ∂Yᵀ·X`, `∂b = Σ_batch ∂Y`.
public struct DenseLayer<Scalar: BinaryFloatingPoint & Sendable>: Sendable {
    /// `[outputCount, inputCount]`.
    public var weights: Tensor<Scalar>
    /// `[outputCount]`.
    public var bias: Tensor<Scalar>

    /// A layer with `[outputCount, inputCount]` weights and `[outputCount]` bias.
    public init(weights: Tensor<Scalar>, bias: Tensor<Scalar>) {
        precondition(weights.rank == 2 && bias.shape == [weights.shape[0]], "DenseLayer: weights [out, in] and bias [out]")
        self.weights = weights
        self.bias = bias
    }

    /// Values per input row.
    public var inputCount: Int { weights.shape[1] }
    /// Values per output row.
    public var outputCount: Int { weights.shape[0] }

    /// What the backward pass reads: the input.
    public typealias Cache = InputCache<Scalar>

    /// The loss's gradient with respect to each parameter.
    public struct Gradients: Sendable, Equatable {
        /// `[outputCount, inputCount]`.
        public var weights: Tensor<Scalar>
        /// `[outputCount]`.
        public var bias: Tensor<Scalar>
    }

    /// The layer in another precision.
    public func converted<Other: BinaryFloatingPoint & Sendable>(to _: Other.Type) -> DenseLayer<Other> {
        DenseLayer<Other>(weights: weights.converted(), bias: bias.converted())
    }

    private func checkInput(_ input: Tensor<Scalar>) {
        precondition(input.rank == 2 && input.shape[1] == inputCount, "DenseLayer: input \(input.shape) for \(inputCount) inputs")
    }

    /// The naive reference forward pass (double-precision dot products).
    public func referenceForward(_ input: Tensor<Scalar>, mode: ForwardMode) -> (output: Tensor<Scalar>, cache: Cache?) {
        checkInput(input)
        let batch = input.shape[0], inputs = inputCount
        // Y[n, o] = b[o] + Σ_i X[n, i]·W[o, i]
        let output: [Scalar] = referenceProduct(
            rows: batch, columns: outputCount, depth: inputs, start: { _, o in Double(bias.storage[o]) },
            { n, i in Double(input.storage[n * inputs + i]) },
            { i, o in Double(weights.storage[o * inputs + i]) })
        return (Tensor(shape: [batch, outputCount], storage: output), mode == .training ? Cache(input: input) : nil)
    }

    /// The naive reference backward pass (double-precision sums).
    public func referenceBackward(
        _ outputGradient: Tensor<Scalar>, cache: Cache,
        computesInputGradient: Bool = true
    ) -> (input: Tensor<Scalar>?, gradients: Gradients) {
        let input = cache.input, batch = input.shape[0], inputs = inputCount, outputs = outputCount
        precondition(outputGradient.shape == [batch, outputs], "DenseLayer: gradient shape")
        // ∂W[o, i] = Σ_n ∂Y[n, o]·X[n, i]
        let weightGradient: [Scalar] = referenceProduct(
            rows: outputs, columns: inputs, depth: batch,
            { o, n in Double(outputGradient.storage[n * outputs + o]) },
            { n, i in Double(input.storage[n * inputs + i]) })
        var biasGradient = Tensor<Scalar>(shape: bias.shape)
        for o in 0..<outputs {
            var sum = 0.0
            for n in 0..<batch { sum += Double(outputGradient.storage[n * outputs + o]) }
            biasGradient.storage[o] = Scalar(sum)
        }
        var inputGradient: Tensor<Scalar>?
        if computesInputGradient {
            // ∂X[n, i] = Σ_o ∂Y[n, o]·W[o, i]
            inputGradient = Tensor(
                shape: input.shape,
                storage: referenceProduct(
                    rows: batch, columns: inputs, depth: outputs,
                    { n, o in Double(outputGradient.storage[n * outputs + o]) },
                    { o, i in Double(weights.storage[o * inputs + i]) }))
        }
        return (inputGradient, Gradients(weights: Tensor(shape: weights.shape, storage: weightGradient), bias: biasGradient))
    }
}

extension DenseLayer where Scalar == Float {
    /// The fast forward pass: one BLAS product (`X·Wᵀ`, W used as stored), then the bias.
    public func forward(_ input: Tensor<Float>, mode: ForwardMode) -> (output: Tensor<Float>, cache: Cache?) {
        checkInput(input)
        let batch = input.shape[0], inputs = inputCount, outputs = outputCount
        let output = Tensor<Float>(shape: [batch, outputs]) { output in
            input.withUnsafeBufferPointer { input in
                weights.withUnsafeBufferPointer { weights in
                    // C [batch, out] = X [batch, in] · Wᵀ, W stored [out, in] → transposeB.
                    GEMM.multiply(
                        m: batch, n: outputs, k: inputs, a: input.baseAddress!, lda: inputs,
                        b: weights.baseAddress!, ldb: inputs, transposeB: true, c: output.baseAddress!, ldc: outputs)
                }
            }
            for n in 0..<batch {
                for o in 0..<outputs { output[n * outputs + o] += bias.storage[o] }
            }
        }
        return (output, mode == .training ? Cache(input: input) : nil)
    }

    /// The fast backward pass: two BLAS products and a column sum.
    public func backward(
        _ outputGradient: Tensor<Float>, cache: Cache,
        computesInputGradient: Bool = true
    ) -> (input: Tensor<Float>?, gradients: Gradients) {
        let input = cache.input, batch = input.shape[0], inputs = inputCount, outputs = outputCount
        precondition(outputGradient.shape == [batch, outputs], "DenseLayer: gradient shape")
        let weightGradient = Tensor<Float>(shape: weights.shape) { weightGradient in
            outputGradient.withUnsafeBufferPointer { gradient in
                input.withUnsafeBufferPointer { input in
                    // ∂W [out, in] = ∂Yᵀ · X, ∂Y stored [batch, out] → transposeA.
                    GEMM.multiply(
                        m: outputs, n: inputs, k: batch, a: gradient.baseAddress!, lda: outputs, transposeA: true,
                        b: input.baseAddress!, ldb: inputs, c: weightGradient.baseAddress!, ldc: inputs)
                }
            }
        }
        var biasGradient = Tensor<Float>(shape: bias.shape)
        for n in 0..<batch {
            for o in 0..<outputs { biasGradient.storage[o] += outputGradient.storage[n * outputs + o] }
        }
        var inputGradient: Tensor<Float>?
        if computesInputGradient {
            inputGradient = Tensor<Float>(shape: input.shape) { inputGradient in
                outputGradient.withUnsafeBufferPointer { gradient in
                    weights.withUnsafeBufferPointer { weights in
                        // ∂X [batch, in] = ∂Y [batch, out] · W [out, in].
                        GEMM.multiply(
                            m: batch, n: inputs, k: outputs, a: gradient.baseAddress!, lda: outputs,
                            b: weights.baseAddress!, ldb: inputs, c: inputGradient.baseAddress!, ldc: inputs)
                    }
                }
            }
        }
        return (inputGradient, Gradients(weights: weightGradient, bias: biasGradient))
    }
}
