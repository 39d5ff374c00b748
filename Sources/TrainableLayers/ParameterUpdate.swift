/// How an optimizer changes one parameter: called with the parameter's name (`"blocks.15.expand.weights"`), the
/// parameter to change in place and its gradient. The names are the paths of the stored properties, so an
/// optimizer can keep per-parameter state and give groups (the classifier, the backbone) their own rates.
public typealias ParameterUpdate<Scalar: BinaryFloatingPoint & Sendable> =
    (_ name: String, _ parameter: inout Tensor<Scalar>, _ gradient: Tensor<Scalar>) -> Void

extension PointwiseConvolutionLayer {
    /// Calls `rule` for each parameter with its gradient.
    public mutating func update(with gradients: Gradients, prefix: String = "", _ rule: ParameterUpdate<Scalar>) {
        rule(prefix + "weights", &weights, gradients.weights)
    }
}

extension DepthwiseConvolutionLayer {
    /// Calls `rule` for each parameter with its gradient.
    public mutating func update(with gradients: Gradients, prefix: String = "", _ rule: ParameterUpdate<Scalar>) {
        rule(prefix + "weights", &weights, gradients.weights)
    }
}

extension ConvolutionLayer {
    /// Calls `rule` for each parameter with its gradient.
    public mutating func update(with gradients: Gradients, prefix: String = "", _ rule: ParameterUpdate<Scalar>) {
        rule(prefix + "weights", &weights, gradients.weights)
    }
}

extension ChannelScaleBiasLayer {
    /// Calls `rule` for each parameter with its gradient.
    public mutating func update(with gradients: Gradients, prefix: String = "", _ rule: ParameterUpdate<Scalar>) {
        rule(prefix + "scale", &scale, gradients.scale)
        rule(prefix + "bias", &bias, gradients.bias)
    }
}

extension ChannelScaleBiasLayer.Gradients {
    /// Adds another part of the batch's gradients.
    public static func += (left: inout Self, right: Self) {
        left.scale += right.scale
        left.bias += right.bias
    }
}

extension DenseLayer {
    /// Calls `rule` for each parameter with its gradient.
    public mutating func update(with gradients: Gradients, prefix: String = "", _ rule: ParameterUpdate<Scalar>) {
        rule(prefix + "weights", &weights, gradients.weights)
        rule(prefix + "bias", &bias, gradients.bias)
    }
}

extension DenseLayer.Gradients {
    /// Adds another part of the batch's gradients.
    public static func += (left: inout Self, right: Self) {
        left.weights += right.weights
        left.bias += right.bias
    }
}
