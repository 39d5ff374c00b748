import LogisticHead
import XCTest
import _TestSupport

final class LogisticRegressionTests: XCTestCase {
    /// Three well-separated 2-D blobs, `perClass` samples each.
    private func blobs(perClass: Int, seed: UInt64) -> (features: [Float], labels: [Int]) {
        var generator = SeededGenerator(seed: seed)
        let centres: [[Float]] = [[-4, 0], [4, 0], [0, 5]]
        var features: [Float] = [], labels: [Int] = []
        for sample in 0..<(3 * perClass) {
            let label = sample % 3
            features += [centres[label][0] + generator.floats(1)[0], centres[label][1] + generator.floats(1)[0]]
            labels.append(label)
        }
        return (features, labels)
    }

    func testSeparableBlobsReachFullTrainingAccuracy() {
        let data = blobs(perClass: 40, seed: 1)
        let outcome = LogisticRegressionTrainer.train(
            features: data.features, labels: data.labels, count: 120,
            dimension: 2, classCount: 3, settings: .init(l2: 0.1))
        XCTAssertTrue(outcome.converged)
        XCTAssertGreaterThan(outcome.iterations, 0)
        let predictions = outcome.model.predictions(data.features, count: 120)
        XCTAssertEqual(predictions, data.labels)
        // Confident, not merely right: every true-class probability is high.
        let probabilities = outcome.model.probabilities(data.features, count: 120)
        for sample in 0..<120 { XCTAssertGreaterThan(probabilities[sample * 3 + data.labels[sample]], 0.9) }
    }

    func testTrainingTwiceGivesBitwiseEqualWeights() {
        var generator = SeededGenerator(seed: 8)
        let count = 200, dimension = 30, classCount = 4
        let features = generator.floats(count * dimension)
        let labels = (0..<count).map { sample in features[sample * dimension] > 0 ? (sample % 2) : 2 + (sample % 2) }
        let settings = LogisticRegressionSettings(l2: 0.5, classWeighting: .balanced)
        let first = LogisticRegressionTrainer.train(
            features: features, labels: labels, count: count,
            dimension: dimension, classCount: classCount, settings: settings)
        let second = LogisticRegressionTrainer.train(
            features: features, labels: labels, count: count,
            dimension: dimension, classCount: classCount, settings: settings)
        XCTAssertEqual(first.model.weights.map(\.bitPattern), second.model.weights.map(\.bitPattern))
        XCTAssertEqual(first.model.bias.map(\.bitPattern), second.model.bias.map(\.bitPattern))
        XCTAssertEqual(first.iterations, second.iterations)
        XCTAssertEqual(first.finalLoss.bitPattern, second.finalLoss.bitPattern)
    }

    func testIterationLimitIsReportedAsNotConverged() {
        let data = blobs(perClass: 20, seed: 2)
        let outcome = LogisticRegressionTrainer.train(
            features: data.features, labels: data.labels, count: 60,
            dimension: 2, classCount: 3,
            settings: .init(l2: 1e-3, maxIterations: 2))
        XCTAssertEqual(outcome.iterations, 2)
        XCTAssertFalse(outcome.converged)
    }

    func testProbabilitiesAreSoftmaxOfLogits() {
        let model = LogisticRegressionModel(classCount: 3, dimension: 2, weights: [1, 0, 0, 1, -1, -1], bias: [0, 0.5, 0])
        let features: [Float] = [1, 2, -3, 0.5]
        XCTAssertEqual(model.logits(features, count: 2), [1, 2.5, -3, -3, 1, 2.5])
        let probabilities = model.probabilities(features, count: 2)
        // Row 0: logits (1, 2.5, −3) → e^{z} / Σ e^{z}.
        let denominator = exp(1.0) + exp(2.5) + exp(-3.0)
        assertClose(Array(probabilities[0..<3]), [exp(1.0), exp(2.5), exp(-3.0)].map { Float($0 / denominator) }, absolute: 1e-7)
        XCTAssertEqual(model.predictions(features, count: 2), [1, 2])
    }

    func testFoldingStandardizationGivesSameLogitsOnRawFeatures() {
        var generator = SeededGenerator(seed: 12)
        let raw = generator.floats(10 * 3, in: -5...20)
        let standardizer = Standardizer(fitting: raw, count: 10, dimension: 3)
        let model = LogisticRegressionModel(classCount: 2, dimension: 3, weights: generator.floats(6), bias: [0.3, -0.2])
        let expected = model.logits(standardizer.apply(raw, count: 10), count: 10)
        let folded = model.foldingStandardization(standardizer).logits(raw, count: 10)
        assertClose(folded, expected, absolute: 1e-4)
    }
}

final class StandardizerTests: XCTestCase {
    func testMeanScaleAndConstantColumn() {
        // Column 0: 1, 2, 3, 6 → mean 3, population variance (4 + 1 + 0 + 9) / 4 = 3.5. Column 1 is constant.
        let features: [Float] = [1, 7, 2, 7, 3, 7, 6, 7]
        let standardizer = Standardizer(fitting: features, count: 4, dimension: 2)
        XCTAssertEqual(standardizer.mean, [3, 7])
        XCTAssertEqual(standardizer.scale[0], Float(3.5.squareRoot()), accuracy: 1e-6)
        XCTAssertEqual(standardizer.scale[1], 1)
        let standardized = standardizer.apply(features, count: 4)
        XCTAssertEqual(standardized[1], 0)
        XCTAssertEqual(standardized[0], Float(-2 / 3.5.squareRoot()), accuracy: 1e-6)
    }

    func testScaleIsFlooredAtTheMedianDeviation() {
        // Population deviations by hand (two rows: half the difference): 1, 0.001, 3, 0 (constant), 2.
        // Sorted 0, 0.001, 1, 2, 3: the median is 1.
        let features: [Float] = [
            0, 0, 0, 5, 0,
            2, 0.002, 6, 5, 4,
        ]
        let floored = Standardizer(fitting: features, count: 2, dimension: 5, floor: .medianDeviation)
        XCTAssertEqual(floored.scale[0], 1, accuracy: 1e-6)
        XCTAssertEqual(floored.scale[1], 1, accuracy: 1e-6, "the near-constant column is raised to the median")
        XCTAssertEqual(floored.scale[2], 3, accuracy: 1e-6)
        XCTAssertEqual(floored.scale[3], 1, accuracy: 1e-6, "a constant column is raised too")
        XCTAssertEqual(floored.scale[4], 2, accuracy: 1e-6)
        let unfloored = Standardizer(fitting: features, count: 2, dimension: 5)
        XCTAssertEqual(unfloored.scale[1], 0.001, accuracy: 1e-7)
        XCTAssertEqual(unfloored.scale[3], 1, "a constant column keeps scale 1")
        XCTAssertEqual(
            unfloored.scale[1], Standardizer(fitting: features, count: 2, dimension: 5, floor: .none).scale[1],
            "the frozen head's default is no floor (scikit-learn's StandardScaler)")
        // The floored standardiser amplifies a change in the near-constant column no more than a typical one.
        let shifted = floored.apply([0, 0.1, 0, 5, 0], count: 1)
        XCTAssertEqual(shifted[1], Float(0.1 - 0.001) / 1, accuracy: 1e-6)
    }

    func testEmptyFitIsIdentity() {
        let standardizer = Standardizer(fitting: [], count: 0, dimension: 3)
        XCTAssertEqual(standardizer.mean, [0, 0, 0])
        XCTAssertEqual(standardizer.scale, [1, 1, 1])
    }
}

final class LogisticRegressionEdgeCaseTests: XCTestCase {
    func testEmptyTrainingSetGivesZeroModel() {
        let outcome = LogisticRegressionTrainer.train(
            features: [], labels: [], count: 0, dimension: 3, classCount: 2,
            settings: .init(l2: 1))
        XCTAssertTrue(outcome.converged)
        XCTAssertEqual(outcome.model.weights, [0, 0, 0, 0, 0, 0])
        XCTAssertEqual(outcome.model.predictions([], count: 0), [])
    }

    func testModelJSONRoundTripAndRejection() throws {
        let model = LogisticRegressionModel(classCount: 2, dimension: 1, weights: [0.5, -0.5], bias: [0.1, -0.1])
        XCTAssertEqual(try JSONDecoder().decode(LogisticRegressionModel.self, from: JSONEncoder().encode(model)), model)
        let bad = Data(#"{"classCount": 2, "dimension": 3, "weights": [1, 2], "bias": [0, 0]}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(LogisticRegressionModel.self, from: bad))
    }
}
