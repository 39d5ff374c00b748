// Visiting every parameter by name, without gradients: what weight averaging (`TrainableClassifier.interpolated`)
// needs. The names are the ones `update(with:_:)` gives an optimizer.

/// Called with a parameter's name and the parameter, to read or change in place.
public typealias ParameterVisit<Scalar: BinaryFloatingPoint & Sendable> = (_ name: String, _ parameter: inout Tensor<Scalar>) -> Void

extension PointwiseConvolutionLayer {
    /// Calls `visit` for each parameter.
    public mutating func visitParameters(prefix: String = "", _ visit: ParameterVisit<Scalar>) {
        visit(prefix + "weights", &weights)
    }
}

extension DepthwiseConvolutionLayer {
    /// Calls `visit` for each parameter.
    public mutating func visitParameters(prefix: String = "", _ visit: ParameterVisit<Scalar>) {
        visit(prefix + "weights", &weights)
    }
}

extension ConvolutionLayer {
    /// Calls `visit` for each parameter.
    public mutating func visitParameters(prefix: String = "", _ visit: ParameterVisit<Scalar>) {
        visit(prefix + "weights", &weights)
    }
}

extension ChannelScaleBiasLayer {
    /// Calls `visit` for each parameter.
    public mutating func visitParameters(prefix: String = "", _ visit: ParameterVisit<Scalar>) {
        visit(prefix + "scale", &scale)
        visit(prefix + "bias", &bias)
    }
}

extension DenseLayer {
    /// Calls `visit` for each parameter.
    public mutating func visitParameters(prefix: String = "", _ visit: ParameterVisit<Scalar>) {
        visit(prefix + "weights", &weights)
        visit(prefix + "bias", &bias)
    }
}

extension InvertedResidualBlock {
    /// Calls `visit` for each parameter, named `prefix` + layer + parameter.
    public mutating func visitParameters(prefix: String = "", _ visit: ParameterVisit<Scalar>) {
        expand?.visitParameters(prefix: prefix + "expand.", visit)
        expandScaleBias?.visitParameters(prefix: prefix + "expandScaleBias.", visit)
        depthwise.visitParameters(prefix: prefix + "depthwise.", visit)
        depthwiseScaleBias.visitParameters(prefix: prefix + "depthwiseScaleBias.", visit)
        project.visitParameters(prefix: prefix + "project.", visit)
        projectScaleBias.visitParameters(prefix: prefix + "projectScaleBias.", visit)
    }
}

extension TrainableEfficientNetLite0 {
    /// Calls `visit` for each trainable parameter, named as `update(with:_:)` names them.
    public mutating func visitParameters(_ visit: ParameterVisit<Float>) {
        stem?.visitParameters(prefix: "stem.", visit)
        stemScaleBias?.visitParameters(prefix: "stemScaleBias.", visit)
        for index in blocks.indices {
            blocks[index].visitParameters(prefix: "blocks.\(blocks[index].specification.index).", visit)
        }
        head.visitParameters(prefix: "head.", visit)
        headScaleBias.visitParameters(prefix: "headScaleBias.", visit)
    }
}

extension TrainableClassifier {
    /// Calls `visit` for each trainable parameter, named as `update(with:_:)` names them.
    public mutating func visitParameters(_ visit: ParameterVisit<Float>) {
        backbone.visitParameters(visit)
        classifier.visitParameters(prefix: "classifier.", visit)
    }

    /// Every trainable parameter by name.
    public var parameters: [String: Tensor<Float>] {
        var copy = self
        var found: [String: Tensor<Float>] = [:]
        copy.visitParameters { name, parameter in found[name] = parameter }
        return found
    }

    /// The weight-space mix of this classifier and `other` (the same network, trained further): every parameter
    /// `self + weight · (other − self)`, so weight 1 is `other` and 0 is `self`. With `self` the linear probe and
    /// `other` the fine-tuned model this is WiSE-FT (Wortsman et al. 2022), which keeps part of what the start
    /// knew. Every parameter must have the same shape in both.
    public func interpolated(toward other: TrainableClassifier, weight: Float) -> TrainableClassifier {
        let targets = other.parameters
        var mixed = self
        mixed.visitParameters { name, parameter in
            guard let target = targets[name] else { preconditionFailure("interpolated: \(name) is missing from the other classifier") }
            precondition(target.shape == parameter.shape, "interpolated: \(name) is \(parameter.shape) here, \(target.shape) there")
            if weight == 1 { parameter = target; return }
            let start = parameter.scalars, end = target.scalars
            parameter = Tensor(shape: parameter.shape, storage: zip(start, end).map { $0 + weight * ($1 - $0) })
        }
        return mixed
    }

    /// The uniform average of `classifiers` (the same network trained several times from one start): every
    /// parameter the mean of theirs, summed in `Double` in the given order, so the same members in the same order
    /// give the same bits. A "model soup" (Wortsman et al. 2022): runs from one start stay in one basin, and their
    /// mean is usually at least as good as a typical member and varies less from seed to seed. Every member must
    /// have the same parameters and shapes; one member is returned unchanged.
    public static func averaged(_ classifiers: [TrainableClassifier]) -> TrainableClassifier {
        guard var mean = classifiers.first else { preconditionFailure("averaged: no classifiers") }
        guard classifiers.count > 1 else { return mean }
        let members = classifiers.map(\.parameters)
        let count = Double(classifiers.count)
        mean.visitParameters { name, parameter in
            var sums = [Double](repeating: 0, count: parameter.scalars.count)
            for member in members {
                guard let values = member[name] else { preconditionFailure("averaged: \(name) is missing from a member") }
                precondition(
                    values.shape == parameter.shape, "averaged: \(name) is \(parameter.shape) in the first member, \(values.shape) in another")
                for (index, value) in values.scalars.enumerated() { sums[index] += Double(value) }
            }
            parameter = Tensor(shape: parameter.shape, storage: sums.map { Float($0 / count) })
        }
        return mean
    }
}
