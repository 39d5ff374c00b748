/// An objective L-BFGS can minimise, seen from a current point and along one search direction at a time.
///
/// Splitting "value along the line" from "move and take the gradient" lets an objective make line-search trials
/// cheap and exact: `LogisticLineObjective` evaluates `f(x + α d)` from cached logits in Double, so the line
/// search sees a smooth function rather than Float32 rounding noise.
protocol LineSearchObjective: AnyObject {
    /// Makes `parameters` the current point; returns `f` and `∇f` there.
    func reset(to parameters: [Double]) -> (loss: Double, gradient: [Double])
    /// Fixes the search direction `d` from the current point.
    func setDirection(_ direction: [Double])
    /// `φ(α) = f(x + α d)` and `φ'(α)` for the current point `x` and direction `d`.
    func valueAndSlope(at step: Double) -> (loss: Double, slope: Double)
    /// Moves the current point to `x + α d`; returns `f` and `∇f` there.
    func move(by step: Double) -> (loss: Double, gradient: [Double])
}

/// A `LineSearchObjective` from a plain `f, ∇f` function, for objectives without a cheaper line restriction.
final class FunctionObjective: LineSearchObjective {
    private let function: (_ x: [Double], _ gradient: inout [Double]) -> Double
    private var point: [Double] = []
    private var direction: [Double] = []

    init(_ function: @escaping (_ x: [Double], _ gradient: inout [Double]) -> Double) { self.function = function }

    func reset(to parameters: [Double]) -> (loss: Double, gradient: [Double]) {
        point = parameters
        var gradient: [Double] = []
        let loss = function(point, &gradient)
        return (loss, gradient)
    }

    func setDirection(_ direction: [Double]) { self.direction = direction }

    func valueAndSlope(at step: Double) -> (loss: Double, slope: Double) {
        var trial = point
        axpy(step, direction, &trial)
        var gradient: [Double] = []
        let loss = function(trial, &gradient)
        return (loss, dot(gradient, direction))
    }

    func move(by step: Double) -> (loss: Double, gradient: [Double]) {
        axpy(step, direction, &point)
        return reset(to: point)
    }
}

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
        /// No step along the search direction lowered `f` enough.
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
    var relativeLossTolerance = 1e-12
    /// Maximum trial steps per line search.
    var maxLineSearchEvaluations = 30

    /// Sufficient-decrease (Armijo) constant.
    private let sufficientDecrease = 1e-4
    /// Curvature constant; 0.9 is the usual choice for quasi-Newton methods.
    private let curvature = 0.9

    /// Minimises `objective` starting at `start`.
    func minimize(_ objective: some LineSearchObjective, from start: [Double]) -> Result {
        var parameters = start
        var (loss, gradient) = objective.reset(to: parameters)
        var steps: [[Double]] = []
        var gradientChanges: [[Double]] = []
        var curvatures: [Double] = []  // 1 / (sᵀy) for each stored pair
        var iteration = 0
        func result(_ reason: StopReason) -> Result {
            Result(parameters: parameters, loss: loss, gradient: gradient, iterations: iteration, stopReason: reason)
        }
        while true {
            if maxAbsolute(gradient) <= gradientTolerance { return result(.gradientSmall) }
            if iteration >= maxIterations { return result(.iterationLimit) }
            var direction = twoLoopDirection(
                gradient: gradient, steps: steps, gradientChanges: gradientChanges,
                curvatures: curvatures)
            var slope = dot(direction, gradient)
            if !(slope < 0) {
                // Rounding can spoil the quasi-Newton direction; restart from steepest descent.
                steps.removeAll(); gradientChanges.removeAll(); curvatures.removeAll()
                direction = gradient.map { -$0 }
                slope = dot(direction, gradient)
            }
            objective.setDirection(direction)
            // Without curvature information, make the first step move the largest coordinate by at most 1.
            let initialStep = steps.isEmpty ? min(1, 1 / maxAbsolute(direction)) : 1
            guard let step = lineSearch(objective, loss: loss, slope: slope, initialStep: initialStep) else {
                return result(.lineSearchFailed)
            }
            iteration += 1
            let moved = objective.move(by: step)
            let change = direction.map { step * $0 }
            let gradientChange = zip(moved.gradient, gradient).map { $0 - $1 }
            let stepCurvature = dot(change, gradientChange)
            let previousLoss = loss
            axpy(1, change, &parameters)
            (loss, gradient) = moved
            // Keep the pair only if it shows positive curvature; otherwise the update would lose definiteness.
            if stepCurvature > 1e-12 * dot(gradientChange, gradientChange) && stepCurvature > 0 {
                if steps.count == memory {
                    steps.removeFirst(); gradientChanges.removeFirst(); curvatures.removeFirst()
                }
                steps.append(change)
                gradientChanges.append(gradientChange)
                curvatures.append(1 / stepCurvature)
            }
            if previousLoss - loss <= relativeLossTolerance * max(abs(previousLoss), abs(loss), 1) {
                return result(maxAbsolute(gradient) <= gradientTolerance ? .gradientSmall : .lossChangeSmall)
            }
        }
    }

    /// `−H ∇f` by the two-loop recursion; the pairs are ordered oldest first.
    private func twoLoopDirection(
        gradient: [Double], steps: [[Double]], gradientChanges: [[Double]],
        curvatures: [Double]
    ) -> [Double] {
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

    /// A trial step with `φ(step)` and `φ'(step)`.
    private struct Trial {
        var step: Double
        var loss: Double
        var slope: Double
    }

    /// Strong-Wolfe line search: bracket a step by expansion, then zoom. Returns nil if no trial gave sufficient
    /// decrease; if the budget runs out after one did, returns the best such step.
    private func lineSearch(
        _ objective: some LineSearchObjective, loss: Double, slope: Double,
        initialStep: Double
    ) -> Double? {
        var evaluations = 0
        func evaluate(_ step: Double) -> Trial {
            evaluations += 1
            let (value, valueSlope) = objective.valueAndSlope(at: step)
            return Trial(step: step, loss: value, slope: valueSlope)
        }
        func sufficient(_ trial: Trial) -> Bool {
            trial.loss.isFinite && trial.loss <= loss + sufficientDecrease * trial.step * slope
        }
        func flatEnough(_ trial: Trial) -> Bool { abs(trial.slope) <= -curvature * slope }

        var previous = Trial(step: 0, loss: loss, slope: slope)
        var step = initialStep
        var low: Trial
        var high: Trial
        while true {
            let trial = evaluate(step)
            if !sufficient(trial) || (previous.step > 0 && trial.loss >= previous.loss) {
                low = previous; high = trial; break
            }
            if flatEnough(trial) { return trial.step }
            if trial.slope >= 0 { low = trial; high = previous; break }
            if evaluations >= maxLineSearchEvaluations { return trial.step }
            previous = trial
            step *= 4
        }
        // Zoom: `low` satisfies sufficient decrease with the lowest value seen; a Wolfe step lies between the two.
        while evaluations < maxLineSearchEvaluations {
            let width = high.step - low.step
            if abs(width) <= 1e-14 * max(abs(low.step), abs(high.step)) { break }
            var candidate = cubicMinimizer(low, high)
            // Stay clear of the ends so the bracket shrinks by a fixed fraction at worst.
            let lower = min(low.step, high.step) + 0.1 * abs(width)
            let upper = max(low.step, high.step) - 0.1 * abs(width)
            if !candidate.isFinite || candidate < lower || candidate > upper { candidate = 0.5 * (low.step + high.step) }
            let trial = evaluate(candidate)
            if !sufficient(trial) || trial.loss >= low.loss {
                high = trial
            } else {
                if flatEnough(trial) { return trial.step }
                if trial.slope * (high.step - low.step) >= 0 { high = low }
                low = trial
            }
        }
        return low.step > 0 ? low.step : nil
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
