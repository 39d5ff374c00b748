import Foundation
import Training
import XCTest
import _TestSupport

/// The Workbench-sized workload: 1,000 feature vectors of 1280 dimensions, 5 classes, 10 % validation split,
/// L2 search over the default grid, then a final fit on everything. Asserts the outcome, reports the time
/// (run it in a release build for a meaningful number: see Sources/Training/README.md).
final class TrainingBenchmarkTests: XCTestCase {
    func testWorkbenchSizedTrainingWithL2Search() {
        let count = 1000, dimension = 1280, classCount = 5
        var generator = SeededGenerator(seed: 2024)
        // Structured like pooled CNN features: non-negative, a shared low-rank part, a class-specific mean shift.
        let classMeans = (0..<classCount).map { _ in generator.floats(dimension, in: 0...0.2) }
        let factors = (0..<8).map { _ in generator.floats(dimension, in: -0.3...0.3) }
        var raw = [Float](repeating: 0, count: count * dimension)
        var labels = [Int](repeating: 0, count: count)
        for sample in 0..<count {
            let label = (sample * 7 + sample / 13) % classCount
            labels[sample] = label
            let loadings = generator.floats(8)
            let noise = generator.floats(dimension, in: -1...1)
            for column in 0..<dimension {
                var value = classMeans[label][column] + noise[column]
                for factor in 0..<8 { value += loadings[factor] * factors[factor][column] }
                raw[sample * dimension + column] = max(0, value)
            }
        }

        let start = Date()
        let split = StratifiedSplit.split(labels: labels, classCount: classCount, fraction: 0.1, seed: 1)
        let trainingRaw = split.training.flatMap { raw[($0 * dimension)..<(($0 + 1) * dimension)] }
        let validationRaw = split.validation.flatMap { raw[($0 * dimension)..<(($0 + 1) * dimension)] }
        let standardizer = Standardizer(fitting: trainingRaw, count: split.training.count, dimension: dimension)
        let selection = L2Search.select(
            trainingFeatures: standardizer.apply(trainingRaw, count: split.training.count),
            trainingLabels: split.training.map { labels[$0] }, trainingCount: split.training.count,
            validationFeatures: standardizer.apply(validationRaw, count: split.validation.count),
            validationLabels: split.validation.map { labels[$0] }, validationCount: split.validation.count,
            dimension: dimension, classCount: classCount, settings: .init(l2: 1))
        let searchSeconds = Date().timeIntervalSince(start)
        let fullStandardizer = Standardizer(fitting: raw, count: count, dimension: dimension)
        let final = LogisticRegressionTrainer.train(
            features: fullStandardizer.apply(raw, count: count), labels: labels, count: count, dimension: dimension,
            classCount: classCount, settings: .init(l2: selection.l2))
        let totalSeconds = Date().timeIntervalSince(start)

        XCTAssertEqual(split.validation.count, 100)
        XCTAssertTrue(final.converged)
        XCTAssertGreaterThan(selection.validationAccuracies.max()!, 0.5, "5 classes: chance is 0.2")
        print(String(format: "Training benchmark: search %.3f s, total %.3f s, l2 %g, final iterations %d, accuracies %@",
                     searchSeconds, totalSeconds, selection.l2, final.iterations,
                     selection.validationAccuracies.map { String(format: "%.2f", $0) }.joined(separator: " ")))
    }
}
