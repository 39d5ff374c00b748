import Training
import XCTest
import _TestSupport

final class L2SearchTests: XCTestCase {
    /// Two overlapping Gaussian classes in 5-D whose class signal sits in the first two dimensions.
    private func problem(count: Int, seed: UInt64) -> (features: [Float], labels: [Int]) {
        var generator = SeededGenerator(seed: seed)
        var features: [Float] = [], labels: [Int] = []
        for sample in 0..<count {
            let label = sample % 3
            let noise = generator.floats(5, in: -1.5...1.5)
            let centre: [Float] = [Float(label) - 1, label == 1 ? 1 : -0.5, 0, 0, 0]
            features += zip(centre, noise).map { $0 + $1 }
            labels.append(label)
        }
        return (features, labels)
    }

    func testReturnsAccuracyPerGridValueAndIsDeterministic() {
        let training = problem(count: 150, seed: 1)
        let validation = problem(count: 60, seed: 2)
        func run() -> L2Selection {
            L2Search.select(grid: [10, 0.01, 1000, 1],
                            trainingFeatures: training.features, trainingLabels: training.labels, trainingCount: 150,
                            validationFeatures: validation.features, validationLabels: validation.labels,
                            validationCount: 60, dimension: 5, classCount: 3, settings: .init(l2: 12345))
        }
        let selection = run()
        XCTAssertEqual(selection.grid, [10, 0.01, 1000, 1])
        XCTAssertEqual(selection.validationAccuracies.count, 4)
        let best = selection.validationAccuracies.max()!
        // The winner has the best accuracy, and no larger l2 reaches it.
        let winner = selection.grid.firstIndex(of: selection.l2)!
        XCTAssertEqual(selection.validationAccuracies[winner], best)
        for index in selection.grid.indices where selection.grid[index] > selection.l2 {
            XCTAssertLessThan(selection.validationAccuracies[index], best)
        }
        // Three overlapping classes: far better than chance (1/3) at the best value.
        XCTAssertGreaterThan(best, 0.6)
        XCTAssertEqual(selection.outcome.model.weights.count, 15)
        let again = run()
        XCTAssertEqual(again.l2, selection.l2)
        XCTAssertEqual(again.validationAccuracies, selection.validationAccuracies)
        XCTAssertEqual(again.outcome.model, selection.outcome.model)
    }

    func testTiesGoToTheLargerPenalty() {
        // Perfectly separable, so every reasonable l2 scores 100 % and the largest must win.
        let features: [Float] = [-3, -2.5, -2, 2, 2.5, 3]
        let labels = [0, 0, 0, 1, 1, 1]
        let selection = L2Search.select(grid: [0.1, 1, 3],
                                        trainingFeatures: features, trainingLabels: labels, trainingCount: 6,
                                        validationFeatures: [-2.2, 2.2], validationLabels: [0, 1], validationCount: 2,
                                        dimension: 1, classCount: 2, settings: .init(l2: 1))
        XCTAssertEqual(selection.validationAccuracies, [1, 1, 1])
        XCTAssertEqual(selection.l2, 3)
    }

    func testWarmStartedSearchMatchesColdTrainingForTheChosenValue() {
        let training = problem(count: 120, seed: 5)
        let validation = problem(count: 30, seed: 6)
        let selection = L2Search.select(grid: [100, 1, 0.1],
                                        trainingFeatures: training.features, trainingLabels: training.labels,
                                        trainingCount: 120, validationFeatures: validation.features,
                                        validationLabels: validation.labels, validationCount: 30,
                                        dimension: 5, classCount: 3, settings: .init(l2: 1, tolerance: 1e-9))
        let cold = LogisticRegressionTrainer.train(features: training.features, labels: training.labels, count: 120,
                                                   dimension: 5, classCount: 3,
                                                   settings: .init(l2: selection.l2, tolerance: 1e-9))
        // Strictly convex: both reach the same optimum, up to the tolerance.
        assertClose(selection.outcome.model.weights, cold.model.weights, absolute: 1e-4)
    }
}
