/// `Y = min(max(X, 0), 6)`, EfficientNet-Lite's only activation.
///
/// Shapes: input and output alike (any shape). Backward: `∂X = ∂Y` where `0 < X < 6`, else 0 (the clamp's
/// derivative, taken as 0 at the two corners as PyTorch's `relu6` does). `0 < X < 6` exactly when `0 < Y < 6`,
/// so the cache is the output, which the next layer keeps anyway.
public struct ReLU6Layer<Scalar: BinaryFloatingPoint & Sendable>: Sendable {
    /// The layer (it has no parameters).
    public init() {}

    /// What the backward pass reads: the output.
    public struct Cache: Sendable {
        /// The forward pass's output.
        public let output: Tensor<Scalar>
        /// A cache holding `output`.
        public init(output: Tensor<Scalar>) { self.output = output }
    }

    /// The naive reference forward pass.
    public func referenceForward(_ input: Tensor<Scalar>, mode: ForwardMode) -> (output: Tensor<Scalar>, cache: Cache?) {
        var output = input
        for index in 0..<input.count { output.storage[index] = Swift.min(Swift.max(input.storage[index], 0), 6) }
        return (output, mode == .training ? Cache(output: output) : nil)
    }

    /// The naive reference backward pass.
    public func referenceBackward(_ outputGradient: Tensor<Scalar>, cache: Cache) -> Tensor<Scalar> {
        precondition(outputGradient.shape == cache.output.shape, "ReLU6Layer: gradient shape")
        var inputGradient = outputGradient
        for index in 0..<outputGradient.count {
            let value = cache.output.storage[index]
            if !(value > 0 && value < 6) { inputGradient.storage[index] = 0 }
        }
        return inputGradient
    }
}

extension ReLU6Layer where Scalar == Float {
    /// The fast forward pass (one vectorised pass).
    public func forward(_ input: Tensor<Float>, mode: ForwardMode) -> (output: Tensor<Float>, cache: Cache?) {
        let output = Tensor<Float>(shape: input.shape) { output in
            input.withUnsafeBufferPointer { input in
                for index in 0..<input.count { output[index] = Swift.min(Swift.max(input[index], 0), 6) }
            }
        }
        return (output, mode == .training ? Cache(output: output) : nil)
    }

    /// The fast backward pass (one vectorised pass; a select, not a branch).
    public func backward(_ outputGradient: Tensor<Float>, cache: Cache) -> Tensor<Float> {
        precondition(outputGradient.shape == cache.output.shape, "ReLU6Layer: gradient shape")
        return Tensor<Float>(shape: outputGradient.shape) { inputGradient in
            outputGradient.withUnsafeBufferPointer { gradient in
                cache.output.withUnsafeBufferPointer { output in
                    for index in 0..<gradient.count {
                        inputGradient[index] = output[index] > 0 && output[index] < 6 ? gradient[index] : 0
                    }
                }
            }
        }
    }
}
