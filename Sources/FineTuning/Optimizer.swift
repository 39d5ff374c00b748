import TrainableLayers

/// Which update rule a fine-tuning run uses.
public enum OptimizerKind: Sendable, Equatable, Codable {
    /// Stochastic gradient descent with momentum and L2 weight decay, PyTorch's `torch.optim.SGD` convention:
    /// `g' = g + λ·p`, `v ← μ·v + g'`, `p ← p − η·v` (the velocity starts at 0).
    case sgd(momentum: Double)
    /// Adam with decoupled weight decay (Loshchilov & Hutter, "Decoupled Weight Decay Regularization", 2019),
    /// PyTorch's `torch.optim.AdamW`: `p ← p − η·λ·p`, `m ← β₁m + (1 − β₁)g`, `v ← β₂v + (1 − β₂)g²`,
    /// `p ← p − η·(m / (1 − β₁ᵗ)) / (√(v / (1 − β₂ᵗ)) + ε)`, `t` counting this parameter's steps from 1.
    case adamW(beta1: Double, beta2: Double, epsilon: Double)

    /// AdamW with PyTorch's defaults (β₁ 0.9, β₂ 0.999, ε 1e-8).
    public static let adamWDefaults = OptimizerKind.adamW(beta1: 0.9, beta2: 0.999, epsilon: 1e-8)
    /// SGD with momentum 0.9.
    public static let sgdDefaults = OptimizerKind.sgd(momentum: 0.9)

    /// For reports: "AdamW (β₁ 0.9, β₂ 0.999, ε 1e-08)" or "SGD (momentum 0.9)".
    public var summary: String {
        switch self {
        case .sgd(let momentum): return "SGD (momentum \(momentum))"
        case .adamW(let beta1, let beta2, let epsilon): return "AdamW (β₁ \(beta1), β₂ \(beta2), ε \(epsilon))"
        }
    }
}

/// An optimizer with its per-parameter state, keyed by the parameter names `TrainableClassifier.update` passes
/// (`blocks.15.expand.weights`, `classifier.bias`): each parameter keeps its own moments and step count.
///
/// The arithmetic runs in `Float` over the parameter's storage, element by element in index order, so the
/// result depends only on the inputs. `ReferenceOptimizer` is the same rule in plain `Double` loops.
public struct Optimizer: Sendable {
    /// The update rule.
    public let kind: OptimizerKind
    /// First moments (AdamW) or velocities (SGD), by parameter name.
    private var firstMoments: [String: Tensor<Float>] = [:]
    /// Second moments (AdamW only), by parameter name.
    private var secondMoments: [String: Tensor<Float>] = [:]
    /// Steps taken per parameter (AdamW's bias correction).
    private var steps: [String: Int] = [:]

    /// A fresh optimizer (every moment zero).
    public init(kind: OptimizerKind) { self.kind = kind }

    /// Updates `parameter` in place from `gradient` with learning rate `learningRate` and weight decay
    /// `weightDecay` (0 for parameters that are not decayed, such as biases and scales).
    public mutating func step(
        _ name: String, parameter: inout Tensor<Float>, gradient: Tensor<Float>,
        learningRate: Double, weightDecay: Double
    ) {
        precondition(parameter.shape == gradient.shape, "Optimizer: \(name) is \(parameter.shape), gradient \(gradient.shape)")
        let count = parameter.count
        let rate = Float(learningRate), decay = Float(weightDecay)
        switch kind {
        case .sgd(let momentumValue):
            let momentum = Float(momentumValue)
            var velocity = firstMoments[name] ?? Tensor(shape: parameter.shape)
            firstMoments[name] = nil  // so the buffer is uniquely referenced and updates in place
            velocity.withUnsafeMutableBufferPointer { velocity in
                parameter.withUnsafeMutableBufferPointer { parameter in
                    gradient.withUnsafeBufferPointer { gradient in
                        for index in 0..<count {
                            let decayed = gradient[index] + decay * parameter[index]
                            velocity[index] = momentum * velocity[index] + decayed
                            parameter[index] -= rate * velocity[index]
                        }
                    }
                }
            }
            firstMoments[name] = velocity
        case .adamW(let beta1Value, let beta2Value, let epsilonValue):
            let step = (steps[name] ?? 0) + 1
            steps[name] = step
            let beta1 = Float(beta1Value), beta2 = Float(beta2Value), epsilon = Float(epsilonValue)
            // Bias corrections in Double: β₂ᵗ is close to 1 for many steps and Float would round its complement.
            let firstCorrection = Float(1 - integerPower(beta1Value, step)), secondCorrection = Float(1 - integerPower(beta2Value, step))
            let shrink = 1 - rate * decay
            var first = firstMoments[name] ?? Tensor(shape: parameter.shape)
            var second = secondMoments[name] ?? Tensor(shape: parameter.shape)
            firstMoments[name] = nil
            secondMoments[name] = nil
            first.withUnsafeMutableBufferPointer { first in
                second.withUnsafeMutableBufferPointer { second in
                    parameter.withUnsafeMutableBufferPointer { parameter in
                        gradient.withUnsafeBufferPointer { gradient in
                            for index in 0..<count {
                                let g = gradient[index]
                                first[index] = beta1 * first[index] + (1 - beta1) * g
                                second[index] = beta2 * second[index] + (1 - beta2) * g * g
                                let corrected = first[index] / firstCorrection
                                let spread = (second[index] / secondCorrection).squareRoot() + epsilon
                                parameter[index] = parameter[index] * shrink - rate * corrected / spread
                            }
                        }
                    }
                }
            }
            firstMoments[name] = first
            secondMoments[name] = second
        }
    }
}

/// `base` raised to a whole power, in Double.
func integerPower(_ base: Double, _ exponent: Int) -> Double {
    var result = 1.0
    for _ in 0..<exponent { result *= base }
    return result
}

/// The naive reference of `Optimizer`: the same rules, written as the formulas read, over `Double` arrays.
public struct ReferenceOptimizer: Sendable {
    /// The update rule.
    public let kind: OptimizerKind
    private var firstMoments: [String: [Double]] = [:]
    private var secondMoments: [String: [Double]] = [:]
    private var steps: [String: Int] = [:]

    /// A fresh optimizer (every moment zero).
    public init(kind: OptimizerKind) { self.kind = kind }

    /// Updates `parameter` in place, as `Optimizer.step` does.
    public mutating func step(
        _ name: String, parameter: inout [Double], gradient: [Double], learningRate: Double,
        weightDecay: Double
    ) {
        precondition(parameter.count == gradient.count, "ReferenceOptimizer: \(name) sizes differ")
        switch kind {
        case .sgd(let momentum):
            var velocity = firstMoments[name] ?? [Double](repeating: 0, count: parameter.count)
            for index in parameter.indices {
                velocity[index] = momentum * velocity[index] + (gradient[index] + weightDecay * parameter[index])
                parameter[index] -= learningRate * velocity[index]
            }
            firstMoments[name] = velocity
        case .adamW(let beta1, let beta2, let epsilon):
            let step = (steps[name] ?? 0) + 1
            steps[name] = step
            var first = firstMoments[name] ?? [Double](repeating: 0, count: parameter.count)
            var second = secondMoments[name] ?? [Double](repeating: 0, count: parameter.count)
            for index in parameter.indices {
                parameter[index] -= learningRate * weightDecay * parameter[index]
                first[index] = beta1 * first[index] + (1 - beta1) * gradient[index]
                second[index] = beta2 * second[index] + (1 - beta2) * gradient[index] * gradient[index]
                let firstHat = first[index] / (1 - integerPower(beta1, step))
                let secondHat = second[index] / (1 - integerPower(beta2, step))
                parameter[index] -= learningRate * firstHat / (secondHat.squareRoot() + epsilon)
            }
            firstMoments[name] = first
            secondMoments[name] = second
        }
    }
}
