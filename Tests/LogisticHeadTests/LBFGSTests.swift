import XCTest
import _TestSupport
@testable import LogisticHead

final class LBFGSTests: XCTestCase {
    func testMinimizesRosenbrock() {
        // f(x, y) = (1 − x)² + 100 (y − x²)², minimum 0 at (1, 1); a curved valley that defeats naive steps.
        let objective = FunctionObjective { point, gradient in
            let x = point[0], y = point[1]
            gradient = [-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)]
            return (1 - x) * (1 - x) + 100 * (y - x * x) * (y - x * x)
        }
        let result = LBFGS(maxIterations: 200, gradientTolerance: 1e-10, relativeLossTolerance: 0).minimize(objective, from: [-1.2, 1])
        XCTAssertEqual(result.stopReason, .gradientSmall)
        XCTAssertEqual(result.parameters[0], 1, accuracy: 1e-8)
        XCTAssertEqual(result.parameters[1], 1, accuracy: 1e-8)
        XCTAssertLessThan(result.iterations, 100)
    }

    func testMinimizesIllConditionedQuadratic() {
        // f = ½ Σ c_i (x_i − i)² with curvatures spanning four decades.
        let curvatures = (0..<20).map { pow(10, Double($0) / 19 * 4 - 2) }
        let objective = FunctionObjective { point, gradient in
            gradient = point.indices.map { curvatures[$0] * (point[$0] - Double($0)) }
            return point.indices.reduce(0) { $0 + 0.5 * curvatures[$1] * (point[$1] - Double($1)) * (point[$1] - Double($1)) }
        }
        let result = LBFGS(gradientTolerance: 1e-9, relativeLossTolerance: 0).minimize(objective, from: [Double](repeating: 0, count: 20))
        XCTAssertEqual(result.stopReason, .gradientSmall)
        for index in 0..<20 { XCTAssertEqual(result.parameters[index], Double(index), accuracy: 1e-6) }
    }

    /// The incremental line restriction agrees with a fresh evaluation of the objective at `x + α d`.
    func testLogisticLineObjectiveMatchesFullEvaluation() {
        var generator = SeededGenerator(seed: 21)
        let count = 30, dimension = 7, classCount = 4
        let labels = (0..<count).map { ($0 * 5) % classCount }
        let objective = LogisticObjective(
            features: generator.floats(count * dimension, in: -2...2), labels: labels,
            sampleWeights: LogisticRegressionTrainer.sampleWeights(labels: labels, classCount: classCount, weighting: .balanced),
            count: count, dimension: dimension, classCount: classCount, l2: 0.2)
        let start = generator.floats(objective.parameterCount, in: -0.5...0.5).map { Double($0) }
        let direction = generator.floats(objective.parameterCount, in: -0.5...0.5).map { Double($0) }
        let line = LogisticLineObjective(objective)
        var gradient: [Double] = []
        let startState = line.reset(to: start)
        let startLoss = objective.referenceEvaluate(start, gradient: &gradient)
        XCTAssertEqual(startState.loss, startLoss, accuracy: 1e-5 * startLoss)
        assertClose(startState.gradient.map { Float($0) }, gradient.map { Float($0) }, absolute: 1e-4)
        line.setDirection(direction)
        let step = 0.37
        var moved = start
        axpy(step, direction, &moved)
        let expectedLoss = objective.referenceEvaluate(moved, gradient: &gradient)
        let trial = line.valueAndSlope(at: step)
        XCTAssertEqual(trial.loss, expectedLoss, accuracy: 1e-5 * expectedLoss)
        XCTAssertEqual(trial.slope, dot(gradient, direction), accuracy: 1e-4 * max(1, abs(trial.slope)))
        let after = line.move(by: step)
        XCTAssertEqual(after.loss, trial.loss, accuracy: 1e-12 * trial.loss)
        assertClose(after.gradient.map { Float($0) }, gradient.map { Float($0) }, absolute: 1e-4)
    }
}
