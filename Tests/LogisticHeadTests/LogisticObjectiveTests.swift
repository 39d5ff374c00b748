import LogisticHead
import XCTest
import _TestSupport

final class LogisticObjectiveTests: XCTestCase {
    /// Central differences with step 1e-6 in Double: truncation ~1e-12, rounding ~1e-16 · |L| / 1e-6 ≈ 1e-9.
    private let finiteDifferenceTolerance = 1e-6

    private func makeProblem(sampleWeights: [Double]?, seed: UInt64) -> (LogisticObjective, [Double]) {
        var generator = SeededGenerator(seed: seed)
        let count = 12, dimension = 4, classCount = 3
        let features = generator.floats(count * dimension, in: -2...2)
        let labels = (0..<count).map { $0 % classCount }
        let objective = LogisticObjective(
            features: features, labels: labels, sampleWeights: sampleWeights,
            count: count, dimension: dimension, classCount: classCount, l2: 0.3)
        let parameters = generator.floats(objective.parameterCount, in: -1...1).map { Double($0) }
        return (objective, parameters)
    }

    private func assertGradientMatchesFiniteDifferences(
        _ objective: LogisticObjective, at parameters: [Double],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        var gradient: [Double] = []
        _ = objective.referenceEvaluate(parameters, gradient: &gradient)
        XCTAssertEqual(gradient.count, objective.parameterCount, file: file, line: line)
        let step = 1e-6
        var scratch: [Double] = []
        for index in parameters.indices {
            var plus = parameters, minus = parameters
            plus[index] += step
            minus[index] -= step
            let numeric =
                (objective.referenceEvaluate(plus, gradient: &scratch)
                    - objective.referenceEvaluate(minus, gradient: &scratch)) / (2 * step)
            XCTAssertEqual(
                gradient[index], numeric, accuracy: finiteDifferenceTolerance * max(1, abs(numeric)),
                "parameter \(index)", file: file, line: line)
        }
    }

    func testGradientMatchesFiniteDifferencesWithUniformWeights() {
        let (objective, parameters) = makeProblem(sampleWeights: nil, seed: 1)
        assertGradientMatchesFiniteDifferences(objective, at: parameters)
    }

    func testGradientMatchesFiniteDifferencesWithSampleWeights() {
        var generator = SeededGenerator(seed: 99)
        let weights = (0..<12).map { _ in Double.random(in: 0.2...3, using: &generator) }
        let (objective, parameters) = makeProblem(sampleWeights: weights, seed: 2)
        assertGradientMatchesFiniteDifferences(objective, at: parameters)
    }

    func testGradientMatchesFiniteDifferencesWithBalancedWeights() {
        let labels = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 0]
        let weights = LogisticRegressionTrainer.sampleWeights(labels: labels, classCount: 3, weighting: .balanced)
        var generator = SeededGenerator(seed: 5)
        let objective = LogisticObjective(
            features: generator.floats(12 * 4, in: -2...2), labels: labels,
            sampleWeights: weights, count: 12, dimension: 4, classCount: 3, l2: 0.7)
        let parameters = generator.floats(objective.parameterCount).map { Double($0) }
        assertGradientMatchesFiniteDifferences(objective, at: parameters)
    }

    func testBalancedWeightsGiveEveryClassTheSameTotal() {
        let labels = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 0]
        let weights = LogisticRegressionTrainer.sampleWeights(labels: labels, classCount: 3, weighting: .balanced)
        // n / (classCount · n_c) = 12 / (3 · 7), 12 / (3 · 3), 12 / (3 · 2); every class then totals 12 / 3 = 4.
        XCTAssertEqual(weights[0], 12.0 / 21.0, accuracy: 1e-15)
        XCTAssertEqual(weights[6], 12.0 / 9.0, accuracy: 1e-15)
        XCTAssertEqual(weights[9], 2.0, accuracy: 1e-15)
        for classIndex in 0..<3 {
            let total = zip(labels, weights).filter { $0.0 == classIndex }.map(\.1).reduce(0, +)
            XCTAssertEqual(total, 4, accuracy: 1e-12)
        }
    }

    /// The BLAS path runs its products in Float32, so it agrees with the Double reference to Float precision.
    func testFastEvaluationMatchesReference() {
        var generator = SeededGenerator(seed: 3)
        let count = 40, dimension = 17, classCount = 5
        let labels = (0..<count).map { ($0 * 7) % classCount }
        let weights = LogisticRegressionTrainer.sampleWeights(labels: labels, classCount: classCount, weighting: .balanced)
        let objective = LogisticObjective(
            features: generator.floats(count * dimension, in: -2...2), labels: labels,
            sampleWeights: weights, count: count, dimension: dimension,
            classCount: classCount, l2: 0.05)
        let parameters = generator.floats(objective.parameterCount, in: -0.5...0.5).map { Double($0) }
        var fastGradient: [Double] = [], referenceGradient: [Double] = []
        let fastLoss = objective.evaluate(parameters, gradient: &fastGradient)
        let referenceLoss = objective.referenceEvaluate(parameters, gradient: &referenceGradient)
        XCTAssertEqual(fastLoss, referenceLoss, accuracy: 1e-5 * abs(referenceLoss))
        assertClose(fastGradient.map { Float($0) }, referenceGradient.map { Float($0) }, absolute: 1e-4, relative: 1e-5)
    }

    func testLossAtZeroIsTotalWeightTimesLogClassCount() {
        let (objective, parameters) = makeProblem(sampleWeights: nil, seed: 4)
        var gradient: [Double] = []
        let loss = objective.evaluate([Double](repeating: 0, count: parameters.count), gradient: &gradient)
        // Uniform softmax over 3 classes: each sample costs log 3, and the penalty is 0.
        XCTAssertEqual(loss, 12 * log(3.0), accuracy: 1e-9)
    }
}
