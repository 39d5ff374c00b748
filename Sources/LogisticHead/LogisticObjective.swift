import Foundation
import TensorCore

/// The multinomial logistic-regression training objective and its gradient.
///
/// With features `x_i` (`[count, dimension]`, row-major), labels `y_i ∈ 0..<classCount`, sample weights `w_i`,
/// weights `W` (`[classCount, dimension]`) and bias `b` (`[classCount]`):
///
///     L(W, b) = Σ_i w_i · (−log softmax(W x_i + b)[y_i]) + (l2 / 2) · ‖W‖²
///
/// The bias is not penalised. This is scikit-learn's multinomial `LogisticRegression(C = 1 / l2)` objective
/// up to a positive factor, so both have the same minimiser.
///
///     ∂L/∂W = Rᵀ X + l2 · W,   ∂L/∂b = Σ_i R_i,   where R_ik = w_i · (softmax(W x_i + b)_k − [k = y_i])
///
/// Parameters are one flat Double vector: `W` row-major, then `b` (`classCount · (dimension + 1)` values).
public struct LogisticObjective: Sendable {
    /// Training features, `[count, dimension]`.
    public let features: [Float]
    /// Class of each sample, `[count]`.
    public let labels: [Int]
    /// Weight of each sample's loss term, `[count]`.
    public let sampleWeights: [Double]
    /// Number of samples.
    public let count: Int
    /// Feature dimension.
    public let dimension: Int
    /// Number of classes.
    public let classCount: Int
    /// Strength of the `(l2 / 2) · ‖W‖²` penalty.
    public let l2: Double

    /// Creates the objective; `sampleWeights == nil` means every sample weighs 1.
    public init(
        features: [Float], labels: [Int], sampleWeights: [Double]? = nil,
        count: Int, dimension: Int, classCount: Int, l2: Double
    ) {
        precondition(count >= 0 && dimension >= 0 && classCount >= 1, "LogisticObjective: bad sizes")
        precondition(features.count == count * dimension, "LogisticObjective: features must hold count × dimension values")
        precondition(
            labels.count == count && labels.allSatisfy { (0..<classCount).contains($0) },
            "LogisticObjective: labels must be count values in 0..<classCount")
        precondition(sampleWeights == nil || sampleWeights!.count == count, "LogisticObjective: one weight per sample")
        precondition(l2 >= 0, "LogisticObjective: l2 must be non-negative")
        self.features = features
        self.labels = labels
        self.sampleWeights = sampleWeights ?? [Double](repeating: 1, count: count)
        self.count = count
        self.dimension = dimension
        self.classCount = classCount
        self.l2 = l2
    }

    /// Length of the flat parameter vector: `classCount · dimension` weights, then `classCount` biases.
    public var parameterCount: Int { classCount * (dimension + 1) }

    /// Total sample weight `Σ_i w_i`; the data term's gradient scales with it.
    public var totalWeight: Double { sampleWeights.reduce(0, +) }

    /// Returns `L(parameters)` and writes `∇L` into `gradient`.
    ///
    /// The two matrix products (`logits [count, classCount] = X Wᵀ` and `Rᵀ X`) run in Float32 through BLAS;
    /// softmax, the loss sum, the bias gradient and the penalty run in Double, in a fixed order.
    public func evaluate(_ parameters: [Double], gradient: inout [Double]) -> Double {
        precondition(parameters.count == parameterCount, "LogisticObjective: wrong parameter count")
        let weightCount = classCount * dimension
        let logits = featuresTimesWeights(parameters)
        var residuals = [Float](repeating: 0, count: count * classCount)
        var biasGradient = [Double](repeating: 0, count: classCount)
        var loss = 0.0
        var shifted = [Double](repeating: 0, count: classCount)
        for sample in 0..<count {
            let row = sample * classCount
            var largest = -Double.infinity
            for k in 0..<classCount {
                shifted[k] = Double(logits[row + k]) + parameters[weightCount + k]
                largest = max(largest, shifted[k])
            }
            var sum = 0.0
            for k in 0..<classCount {
                shifted[k] = exp(shifted[k] - largest)
                sum += shifted[k]
            }
            let label = labels[sample]
            let weight = sampleWeights[sample]
            let logProbabilityOfLabel = (Double(logits[row + label]) + parameters[weightCount + label] - largest) - log(sum)
            loss -= weight * logProbabilityOfLabel
            for k in 0..<classCount {
                let residual = weight * (shifted[k] / sum - (k == label ? 1 : 0))
                biasGradient[k] += residual
                residuals[row + k] = Float(residual)
            }
        }
        let weightGradient = residualsTimesFeatures(residuals)
        if gradient.count != parameterCount { gradient = [Double](repeating: 0, count: parameterCount) }
        var penalty = 0.0
        for index in 0..<weightCount {
            let parameter = parameters[index]
            penalty += parameter * parameter
            gradient[index] = Double(weightGradient[index]) + l2 * parameter
        }
        for k in 0..<classCount { gradient[weightCount + k] = biasGradient[k] }
        return loss + 0.5 * l2 * penalty
    }

    /// The same function computed entirely in Double with plain loops: the reference `evaluate` is tested
    /// against, and the one the finite-difference check uses.
    public func referenceEvaluate(_ parameters: [Double], gradient: inout [Double]) -> Double {
        precondition(parameters.count == parameterCount, "LogisticObjective: wrong parameter count")
        let weightCount = classCount * dimension
        gradient = [Double](repeating: 0, count: parameterCount)
        var loss = 0.0
        for sample in 0..<count {
            var logits = [Double](repeating: 0, count: classCount)
            for k in 0..<classCount {
                var sum = parameters[weightCount + k]
                for column in 0..<dimension {
                    sum += parameters[k * dimension + column] * Double(features[sample * dimension + column])
                }
                logits[k] = sum
            }
            let largest = logits.max()!
            let logSumExp = largest + log(logits.map { exp($0 - largest) }.reduce(0, +))
            let weight = sampleWeights[sample]
            loss += weight * (logSumExp - logits[labels[sample]])
            for k in 0..<classCount {
                let residual = weight * (exp(logits[k] - logSumExp) - (k == labels[sample] ? 1 : 0))
                gradient[weightCount + k] += residual
                for column in 0..<dimension {
                    gradient[k * dimension + column] += residual * Double(features[sample * dimension + column])
                }
            }
        }
        for index in 0..<weightCount {
            loss += 0.5 * l2 * parameters[index] * parameters[index]
            gradient[index] += l2 * parameters[index]
        }
        return loss
    }
}

/// The two matrix products both objectives share, in Float32 through BLAS.
extension LogisticObjective {
    /// `X Wᵀ`, `[count, classCount]`, for the weights `W` (`[classCount, dimension]`) at the front of a
    /// parameter-shaped vector; the bias is left out.
    func featuresTimesWeights(_ parameters: [Double]) -> [Float] {
        let weights = parameters[0..<(classCount * dimension)].map { Float($0) }
        var product = [Float](repeating: 0, count: count * classCount)
        GEMM.multiplyByTranspose(features, weights, rows: count, columns: classCount, depth: dimension, into: &product)
        return product
    }

    /// `Rᵀ X`, `[classCount, dimension]`: the weight gradient for residuals `R` (`[count, classCount]`).
    func residualsTimesFeatures(_ residuals: [Float]) -> [Float] {
        var product = [Float](repeating: 0, count: classCount * dimension)
        residuals.withUnsafeBufferPointer { r in
            features.withUnsafeBufferPointer { x in
                product.withUnsafeMutableBufferPointer { g in
                    GEMM.multiply(
                        m: classCount, n: dimension, k: count,
                        a: r.baseAddress!, lda: classCount, transposeA: true,
                        b: x.baseAddress!, ldb: dimension,
                        c: g.baseAddress!, ldc: dimension)
                }
            }
        }
        return product
    }
}
