/// Limited-memory BFGS for smooth unconstrained minimisation in Double.
///
/// The search direction comes from the two-loop recursion over the last `memory` pairs
/// `(s = x_{k+1} − x_k, y = ∇f_{k+1} − ∇f_k)`, with the initial inverse Hessian `γ I`, `γ = sᵀy / yᵀy`
/// (Nocedal & Wright, Numerical Optimization, algorithms 7.4 and 7.5). Steps come from a line search that
/// satisfies the strong Wolfe conditions (their algorithms 3.5 and 3.6, with safeguarded cubic interpolation).
/// Everything runs sequentially in a fixed order, so the same objective and start give bitwise-equal results.
struct LBFGS {
    /// Why the minimisation stopped.
    enum StopReason: String, Sendable {
        /// `max |∇f| ≤ gradientTolerance`.
        case gradientSmall
        /// The last step lowered `f` by at most `relativeLossTolerance · max(|f|, 1)`.
        case lossChangeSmall
        /// `maxIterations` steps were taken.
        case iterationLimit
        /// No step along the search direction lowered `f` enough: the objective is flat to its rounding noise.
        case lineSearchFailed
    }

    /// What the minimisation found.
    struct Result {
        var parameters: [Double]
        var loss: Double
        var gradient: [Double]
        var iterations: Int
        var stopReason: StopReason
    }

    /// Number of `(s, y)` pairs kept.
    var memory = 10
    /// Maximum number of iterations (each is one line search).
    var maxIterations = 1000
    /// Absolute tolerance on the largest gradient component.
    var gradientTolerance = 1e-6
    /// Tolerance on the decrease of `f` in one step, relative to `max(|f|, 1)`.
    var relativeLossTolerance = 1e-10
    /// Maximum objective evaluations per line search.
    var maxLineSearchEvaluations = 25

    /// Sufficient-decrease (Armijo) constant.
    private let sufficientDecrease = 1e-4
    /// Curvature constant; 0.9 is the usual choice for quasi-Newton methods.
    private let curvature = 0.9

    /// Minimises `objective`, which returns `f(x)` and writes `∇f(x)` into its second argument.
    func minimize(from start: [Double], objective: (_ x: [Double], _ gradient: inout [Double]) -> Double) -> Result {
        var parameters = start
        var gradient = [Double](repeating: 0, count: start.count)
        var loss = objective(parameters, &gradient)
        var steps: [[Double]] = []
        var gradientChanges: [[Double]] = []
        var curvatures: [Double] = []  // 1 / (sᵀy) for each stored pair
        var iteration = 0
        while true {
            if maxAbsolute(gradient) <= gradientTolerance {
                return Result(parameters: parameters, loss: loss, gradient: gradient, iterations: iteration, stopReason: .gradientSmall)
            }
            if iteration >= maxIterations {
                return Result(parameters: parameters, loss: loss, gradient: gradient, iterations: iteration, stopReason: .iterationLimit)
            }
            var direction = twoLoopDirection(gradient: gradient, steps: steps, gradientChanges: gradientChanges, curvatures: curvatures)
            var slope = dot(direction, gradient)
            if !(slope < 0) {
                // Rounding can spoil the quasi-Newton direction; restart from steepest descent.
                steps.removeAll(); gradientChanges.removeAll(); curvatures.removeAll()
                direction = gradient.map { -$0 }
                slope = dot(direction, gradient)
            }
            // Without curvature information, take a first step of unit length in the largest coordinate.
            let initialStep = steps.isEmpty ? min(1, 1 / maxAbsolute(gradient)) : 1
            guard let accepted = lineSearch(parameters: parameters, loss: loss, slope: slope, direction: direction,
                                            initialStep: initialStep, objective: objective) else {
                return Result(parameters: parameters, loss: loss, gradient: gradient, iterations: iteration, stopReason: .lineSearchFailed)
            }
            iteration += 1
            let step = zip(accepted.parameters, parameters).map { $0 - $1 }
            let gradientChange = zip(accepted.gradient, gradient).map { $0 - $1 }
            let stepCurvature = dot(step, gradientChange)
            let previousLoss = loss
            parameters = accepted.parameters
            gradient = accepted.gradient
            loss = accepted.loss
            // Keep the pair only if it describes positive curvature; otherwise the update would lose definiteness.
            if stepCurvature > 1e-12 * dot(gradientChange, gradientChange) && stepCurvature > 0 {
                if steps.count == memory {
                    steps.removeFirst(); gradientChanges.removeFirst(); curvatures.removeFirst()
                }
                steps.append(step)
                gradientChanges.append(gradientChange)
                curvatures.append(1 / stepCurvature)
            }
            if previousLoss - loss <= relativeLossTolerance * max(abs(previousLoss), abs(loss), 1) {
                let reason: StopReason = maxAbsolute(gradient) <= gradientTolerance ? .gradientSmall : .lossChangeSmall
                return Result(parameters: parameters, loss: loss, gradient: gradient, iterations: iteration, stopReason: reason)
            }
        }
    }

    /// `−H ∇f` by the two-loop recursion; the pairs are ordered oldest first.
    private func twoLoopDirection(gradient: [Double], steps: [[Double]], gradientChanges: [[Double]],
                                  curvatures: [Double]) -> [Double] {
        var q = gradient
        var alphas = [Double](repeating: 0, count: steps.count)
        for index in steps.indices.reversed() {
            alphas[index] = curvatures[index] * dot(steps[index], q)
            axpy(-alphas[index], gradientChanges[index], &q)
        }
        if let last = steps.indices.last {
            let gamma = dot(steps[last], gradientChanges[last]) / dot(gradientChanges[last], gradientChanges[last])
            for index in q.indices { q[index] *= gamma }
        }
        for index in steps.indices {
            let beta = curvatures[index] * dot(gradientChanges[index], q)
            axpy(alphas[index] - beta, steps[index], &q)
        }
        for index in q.indices { q[index] = -q[index] }
        return q
    }

    /// A point along the search direction with its objective value and gradient.
    private struct Trial {
        var step: Double
        var parameters: [Double]
        var loss: Double
        var gradient: [Double]
        var slope: Double
    }

    /// Strong-Wolfe line search: bracket a step by expansion, then zoom. Returns nil if no evaluated step
    /// gave sufficient decrease; if the budget runs out after one did, returns the best such step.
    private func lineSearch(parameters: [Double], loss: Double, slope: Double, direction: [Double], initialStep: Double,
                            objective: (_ x: [Double], _ gradient: inout [Double]) -> Double) -> Trial? {
        var evaluations = 0
        func evaluate(_ step: Double) -> Trial {
            evaluations += 1
            var point = parameters
            axpy(step, direction, &point)
            var gradient = [Double](repeating: 0, count: point.count)
            let value = objective(point, &gradient)
            return Trial(step: step, parameters: point, loss: value, gradient: gradient, slope: dot(gradient, direction))
        }
        func sufficient(_ trial: Trial) -> Bool {
            trial.loss.isFinite && trial.loss <= loss + sufficientDecrease * trial.step * slope
        }
        func flatEnough(_ trial: Trial) -> Bool { abs(trial.slope) <= -curvature * slope }

        let origin = Trial(step: 0, parameters: parameters, loss: loss, gradient: [], slope: slope)
        var previous = origin
        var step = initialStep
        var low: Trial
        var high: Trial
        while true {
            let trial = evaluate(step)
            if !sufficient(trial) || (previous.step > 0 && trial.loss >= previous.loss) {
                low = previous; high = trial; break
            }
            if flatEnough(trial) { return trial }
            if trial.slope >= 0 { low = trial; high = previous; break }
            if evaluations >= maxLineSearchEvaluations { return trial }
            previous = trial
            step *= 2
        }
        // Zoom: `low` always satisfies sufficient decrease and has the lowest value seen; the minimiser lies between.
        while evaluations < maxLineSearchEvaluations {
            let width = high.step - low.step
            if abs(width) <= 1e-16 * max(1, abs(low.step)) { break }
            var candidate = cubicMinimizer(low, high)
            // Stay clear of the ends so the bracket shrinks by a fixed fraction at worst.
            let lower = min(low.step, high.step) + 0.1 * abs(width)
            let upper = max(low.step, high.step) - 0.1 * abs(width)
            if !candidate.isFinite || candidate < lower || candidate > upper { candidate = 0.5 * (low.step + high.step) }
            let trial = evaluate(candidate)
            if !sufficient(trial) || trial.loss >= low.loss {
                high = trial
            } else {
                if flatEnough(trial) { return trial }
                if trial.slope * (high.step - low.step) >= 0 { high = low }
                low = trial
            }
        }
        return low.step > 0 ? low : nil
    }

    /// Step at the minimum of the cubic matching value and slope at both trials (may be non-finite).
    private func cubicMinimizer(_ a: Trial, _ b: Trial) -> Double {
        let d1 = a.slope + b.slope - 3 * (a.loss - b.loss) / (a.step - b.step)
        let discriminant = d1 * d1 - a.slope * b.slope
        guard discriminant >= 0 else { return .nan }
        let d2 = (b.step > a.step ? 1.0 : -1.0) * discriminant.squareRoot()
        return b.step - (b.step - a.step) * (b.slope + d2 - d1) / (b.slope - a.slope + 2 * d2)
    }
}

/// `Σ a_i b_i` in index order.
func dot(_ a: [Double], _ b: [Double]) -> Double {
    var sum = 0.0
    for index in a.indices { sum += a[index] * b[index] }
    return sum
}

/// `y += alpha · x`.
func axpy(_ alpha: Double, _ x: [Double], _ y: inout [Double]) {
    for index in y.indices { y[index] += alpha * x[index] }
}

/// Largest absolute component (0 for an empty vector).
func maxAbsolute(_ values: [Double]) -> Double {
    values.reduce(0) { max($0, abs($1)) }
}
