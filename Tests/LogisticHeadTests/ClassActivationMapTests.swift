import LogisticHead
import XCTest
import _TestSupport

/// The class-activation map of a linear head: a hand-worked case, and exactness (its mean plus the bias is the
/// logit of the pooled features).
final class ClassActivationMapTests: XCTestCase {
    func testHandWorkedMap() {
        // W = [[1, 0], [0, 2]], μ = [1, 1], σ = [2, 1]; positions F_0 = [3, 1], F_1 = [1, 3].
        // Standardised: [1, 0] and [0, 2]. Label 0: [1, 0]; label 1: [0, 4]. The bias never enters.
        let model = LogisticRegressionModel(classCount: 2, dimension: 2, weights: [1, 0, 0, 2], bias: [5, -7])
        let standardizer = Standardizer(mean: [1, 1], scale: [2, 1])
        let map = ClassActivationMap.compute(featureMap: [3, 1, 1, 3], positions: 2, model: model, standardizer: standardizer)
        XCTAssertEqual(map, [[1, 0], [0, 4]])
    }

    func testMeanOfTheMapPlusBiasIsThePooledLogit() {
        var generator = SeededGenerator(seed: 11)
        let positions = 49, dimension = 64, classCount = 5
        let featureMap = (0..<(positions * dimension)).map { _ in Float.random(in: 0...6, using: &generator) }
        let model = LogisticRegressionModel(
            classCount: classCount, dimension: dimension,
            weights: (0..<(classCount * dimension)).map { _ in Float.random(in: -1...1, using: &generator) },
            bias: (0..<classCount).map { _ in Float.random(in: -2...2, using: &generator) })
        let standardizer = Standardizer(
            mean: (0..<dimension).map { _ in Float.random(in: 0...3, using: &generator) },
            scale: (0..<dimension).map { _ in Float.random(in: 0.5...2, using: &generator) })
        var pooled = [Float](repeating: 0, count: dimension)
        for p in 0..<positions {
            for c in 0..<dimension { pooled[c] += featureMap[p * dimension + c] / Float(positions) }
        }
        let logits = model.logits(standardizer.apply(pooled, count: 1), count: 1)
        let map = ClassActivationMap.compute(featureMap: featureMap, positions: positions, model: model, standardizer: standardizer)
        XCTAssertEqual(map.count, classCount)
        let fromMap = (0..<classCount).map { k in map[k].reduce(0, +) / Float(positions) + model.bias[k] }
        // Float32 sums of 64 products of size ~10, in two different orders.
        assertClose(fromMap, logits, absolute: 1e-3, "mean_p CAM_k(p) + b_k = logit_k")
    }
}
