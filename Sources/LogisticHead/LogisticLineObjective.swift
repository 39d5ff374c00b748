import Foundation

/// `LogisticObjective` prepared for L-BFGS: it keeps the logits of the current point and of the search direction,
/// so a line-search trial costs `O(count · classCount)` instead of two matrix products.
///
/// Why: the products run in Float32, so recomputing `X Wᵀ` at every trial would add rounding noise of about
/// 1e-8 relative to the loss. Near the optimum the true decrease per step is smaller than that, the line search
/// would fail, and the weights would stop ~1e-3 short of the optimum. Moving the logits by
/// `z ← z + α · (X dᵀ)` in Double makes `φ(α)` smooth and every loss difference exact, at the price of a drift of
/// the cached logits from `X Wᵀ` by about one Float32 rounding of the path travelled (far below anything that
/// matters for the weights). `X dᵀ` and the gradient `Rᵀ X` still go through BLAS: two products per iteration.
///
/// Layouts: logits, direction logits `[count, classCount]`; weights, direction `[classCount, dimension]` then
/// `[classCount]` biases, as in `LogisticObjective`.
final class LogisticLineObjective: LineSearchObjective {
    private let objective: LogisticObjective
    private var parameters: [Double] = []
    private var logits: [Double] = []
    private var direction: [Double] = []
    private var directionLogits: [Double] = []
    /// `‖W‖²`, `W · dW`, `‖dW‖²` for the penalty along the line.
    private var weightNorm = 0.0, weightDotDirection = 0.0, directionNorm = 0.0

    init(_ objective: LogisticObjective) { self.objective = objective }

    private var weightCount: Int { objective.classCount * objective.dimension }

    func reset(to parameters: [Double]) -> (loss: Double, gradient: [Double]) {
        precondition(parameters.count == objective.parameterCount, "LogisticLineObjective: wrong parameter count")
        self.parameters = parameters
        logits = linearMap(parameters)
        return lossAndGradient()
    }

    func setDirection(_ direction: [Double]) {
        self.direction = direction
        directionLogits = linearMap(direction)
        weightNorm = 0; weightDotDirection = 0; directionNorm = 0
        for index in 0..<weightCount {
            weightNorm += parameters[index] * parameters[index]
            weightDotDirection += parameters[index] * direction[index]
            directionNorm += direction[index] * direction[index]
        }
    }

    func valueAndSlope(at step: Double) -> (loss: Double, slope: Double) {
        let classCount = objective.classCount
        var loss = 0.0, slope = 0.0
        var moved = [Double](repeating: 0, count: classCount)
        for sample in 0..<objective.count {
            let row = sample * classCount
            var largest = -Double.infinity
            for k in 0..<classCount {
                moved[k] = logits[row + k] + step * directionLogits[row + k]
                largest = max(largest, moved[k])
            }
            var sum = 0.0
            for k in 0..<classCount { sum += exp(moved[k] - largest) }
            let logSumExp = largest + log(sum)
            let label = objective.labels[sample]
            let weight = objective.sampleWeights[sample]
            loss += weight * (logSumExp - moved[label])
            var sampleSlope = -directionLogits[row + label]
            for k in 0..<classCount { sampleSlope += exp(moved[k] - logSumExp) * directionLogits[row + k] }
            slope += weight * sampleSlope
        }
        let l2 = objective.l2
        loss += 0.5 * l2 * (weightNorm + 2 * step * weightDotDirection + step * step * directionNorm)
        slope += l2 * (weightDotDirection + step * directionNorm)
        return (loss, slope)
    }

    func move(by step: Double) -> (loss: Double, gradient: [Double]) {
        axpy(step, direction, &parameters)
        axpy(step, directionLogits, &logits)
        return lossAndGradient()
    }

    /// `X Wᵀ + b` for a parameter-shaped vector, `[count, classCount]`, with the product in Float32 through BLAS.
    private func linearMap(_ vector: [Double]) -> [Double] {
        let count = objective.count, classCount = objective.classCount
        let product = objective.featuresTimesWeights(vector)
        var result = [Double](repeating: 0, count: count * classCount)
        for sample in 0..<count {
            for k in 0..<classCount {
                result[sample * classCount + k] = Double(product[sample * classCount + k]) + vector[weightCount + k]
            }
        }
        return result
    }

    /// Loss and gradient at the current point from the cached logits.
    private func lossAndGradient() -> (loss: Double, gradient: [Double]) {
        let count = objective.count, classCount = objective.classCount
        var residuals = [Float](repeating: 0, count: count * classCount)
        var gradient = [Double](repeating: 0, count: objective.parameterCount)
        var loss = 0.0
        for sample in 0..<count {
            let row = sample * classCount
            var largest = -Double.infinity
            for k in 0..<classCount { largest = max(largest, logits[row + k]) }
            var sum = 0.0
            for k in 0..<classCount { sum += exp(logits[row + k] - largest) }
            let logSumExp = largest + log(sum)
            let label = objective.labels[sample]
            let weight = objective.sampleWeights[sample]
            loss += weight * (logSumExp - logits[row + label])
            for k in 0..<classCount {
                let residual = weight * (exp(logits[row + k] - logSumExp) - (k == label ? 1 : 0))
                gradient[weightCount + k] += residual
                residuals[row + k] = Float(residual)
            }
        }
        let weightGradient = objective.residualsTimesFeatures(residuals)
        var penalty = 0.0
        for index in 0..<weightCount {
            penalty += parameters[index] * parameters[index]
            gradient[index] = Double(weightGradient[index]) + objective.l2 * parameters[index]
        }
        return (loss + 0.5 * objective.l2 * penalty, gradient)
    }
}
