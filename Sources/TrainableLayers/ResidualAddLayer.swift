/// The skip connection of an inverted-residual block: `Y = A + B`, for two tensors of one shape.
///
/// Backward: `∂A = ∂B = ∂Y`. No parameters and no cache.
public struct ResidualAddLayer<Scalar: BinaryFloatingPoint & Sendable>: Sendable {
    /// The layer (it has no parameters).
    public init() {}

    /// The naive reference forward pass.
    public func referenceForward(_ first: Tensor<Scalar>, _ second: Tensor<Scalar>) -> Tensor<Scalar> {
        precondition(first.shape == second.shape, "ResidualAddLayer: shapes \(first.shape) and \(second.shape)")
        var output = first
        for index in 0..<first.count { output.storage[index] = first.storage[index] + second.storage[index] }
        return output
    }

    /// The backward pass (the same for reference and fast): the output gradient flows to both inputs unchanged.
    public func backward(_ outputGradient: Tensor<Scalar>) -> (first: Tensor<Scalar>, second: Tensor<Scalar>) {
        (outputGradient, outputGradient)
    }
}

extension ResidualAddLayer where Scalar == Float {
    /// The fast forward pass (one vectorised pass).
    public func forward(_ first: Tensor<Float>, _ second: Tensor<Float>) -> Tensor<Float> {
        precondition(first.shape == second.shape, "ResidualAddLayer: shapes \(first.shape) and \(second.shape)")
        var output = first
        output += second
        return output
    }
}
