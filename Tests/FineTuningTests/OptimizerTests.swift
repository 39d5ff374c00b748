import FineTuning
import TrainableLayers
import XCTest
import _TestSupport

final class OptimizerTests: XCTestCase {
    /// Float against the Double reference over several steps: rounding of a few steps of O(1) arithmetic.
    static let referenceTolerance: Float = 1e-5

    func testAdamWFirstStepsByHand() {
        // p = 1, g = 0.5, η = 0.1, λ = 0.01. Step 1: m̂ = 0.5, v̂ = 0.25, so p = 1·(1 − 0.001) − 0.1·0.5/(0.5 + 1e-8).
        var optimizer = Optimizer(kind: .adamWDefaults)
        var parameter = Tensor<Float>(shape: [1], storage: [1])
        let gradient = Tensor<Float>(shape: [1], storage: [0.5])
        optimizer.step("p", parameter: &parameter, gradient: gradient, learningRate: 0.1, weightDecay: 0.01)
        XCTAssertEqual(Double(parameter.scalars[0]), 0.999 - 0.1 * 0.5 / (0.5 + 1e-8), accuracy: 1e-6)
        // Step 2 with g = −0.5: m = 0.9·0.05 − 0.05 = −0.005, m̂ = −0.005/0.19; v = 0.999·0.00025 + 0.00025,
        // v̂ = v / (1 − 0.999²).
        let before = Double(parameter.scalars[0])
        optimizer.step("p", parameter: &parameter, gradient: Tensor(shape: [1], storage: [-0.5]), learningRate: 0.1, weightDecay: 0.01)
        let firstHat = -0.005 / 0.19
        let secondHat = (0.999 * 0.00025 + 0.00025) / (1 - 0.999 * 0.999)
        XCTAssertEqual(Double(parameter.scalars[0]), before * 0.999 - 0.1 * firstHat / (secondHat.squareRoot() + 1e-8), accuracy: 1e-6)
    }

    func testSGDWithMomentumByHand() {
        // p = 1, g = 0.5, λ = 0.1, μ = 0.9, η = 0.1: v = 0.6, p = 0.94; then g' = 0.5 + 0.094, v = 0.54 + 0.594.
        var optimizer = Optimizer(kind: .sgd(momentum: 0.9))
        var parameter = Tensor<Float>(shape: [1], storage: [1])
        let gradient = Tensor<Float>(shape: [1], storage: [0.5])
        optimizer.step("p", parameter: &parameter, gradient: gradient, learningRate: 0.1, weightDecay: 0.1)
        XCTAssertEqual(parameter.scalars[0], 0.94, accuracy: 1e-6)
        optimizer.step("p", parameter: &parameter, gradient: gradient, learningRate: 0.1, weightDecay: 0.1)
        XCTAssertEqual(parameter.scalars[0], 0.94 - 0.1 * 1.134, accuracy: 1e-6)
    }

    func testOptimizersMatchTheirReferences() {
        for kind in [OptimizerKind.adamWDefaults, .sgd(momentum: 0.9), .adamW(beta1: 0.8, beta2: 0.99, epsilon: 1e-6)] {
            var random = SeededGenerator(seed: 7)
            var fast = Optimizer(kind: kind), reference = ReferenceOptimizer(kind: kind)
            // Two named parameters, so state must stay per name.
            var parameters = [random.floats(37), random.floats(5)]
            var referenceParameters = parameters.map { $0.map(Double.init) }
            for step in 0..<6 {
                for index in parameters.indices {
                    let gradient = random.floats(parameters[index].count, in: -3...3)
                    var tensor = Tensor(shape: [parameters[index].count], storage: parameters[index])
                    let rate = 0.01 * Double(step + 1), decay = index == 0 ? 0.05 : 0
                    fast.step(
                        "p\(index)", parameter: &tensor, gradient: Tensor(shape: tensor.shape, storage: gradient),
                        learningRate: rate, weightDecay: decay)
                    reference.step(
                        "p\(index)", parameter: &referenceParameters[index], gradient: gradient.map(Double.init),
                        learningRate: rate, weightDecay: decay)
                    parameters[index] = tensor.scalars
                }
            }
            for index in parameters.indices {
                assertClose(
                    parameters[index], referenceParameters[index].map { Float($0) }, absolute: Self.referenceTolerance,
                    "\(kind.summary) parameter \(index)")
            }
        }
    }
}

final class LearningRateScheduleTests: XCTestCase {
    func testWarmUpThenCosine() {
        let schedule = LearningRateSchedule(warmupSteps: 2, totalSteps: 10)
        // Warm-up: (s + 1) / 2. Then ½(1 + cos(π (s − 2) / 8)).
        XCTAssertEqual(schedule.factor(atStep: 0), 0.5, accuracy: 1e-12)
        XCTAssertEqual(schedule.factor(atStep: 1), 1, accuracy: 1e-12)
        XCTAssertEqual(schedule.factor(atStep: 2), 1, accuracy: 1e-12)
        XCTAssertEqual(schedule.factor(atStep: 6), 0.5, accuracy: 1e-12)
        XCTAssertEqual(schedule.factor(atStep: 9), 0.5 * (1 - 0.923_879_532_511_286_7), accuracy: 1e-12)
        XCTAssertEqual(LearningRateSchedule(warmupSteps: 0, totalSteps: 4).factor(atStep: 0), 1, accuracy: 1e-12)
        XCTAssertEqual(LearningRateSchedule(warmupSteps: 20, totalSteps: 4).warmupSteps, 4, "warm-up clamped to the run")
    }
}

final class LinearProbeHeadTests: XCTestCase {
    func testFoldedHeadComputesTheStandardisedLogitsAndUnfoldsBack() {
        var random = SeededGenerator(seed: 3)
        let dimension = 6, classes = 3, count = 4
        let weights = random.floats(classes * dimension), bias = random.floats(classes)
        let mean = random.floats(dimension), scale = random.floats(dimension, in: 0.5...2)
        let features = random.floats(count * dimension, in: -2...2)
        let layer = LinearProbeHead.folded(weights: weights, bias: bias, mean: mean, scale: scale)
        let logits = layer.forward(Tensor(shape: [count, dimension], storage: features), mode: .inference).output.scalars
        // By hand: W·((x − mean) / scale) + b.
        var expected = [Float](repeating: 0, count: count * classes)
        for row in 0..<count {
            for k in 0..<classes {
                var sum = Double(bias[k])
                for column in 0..<dimension {
                    sum += Double(weights[k * dimension + column]) * Double(features[row * dimension + column] - mean[column]) / Double(scale[column])
                }
                expected[row * classes + k] = Float(sum)
            }
        }
        assertClose(logits, expected, absolute: 1e-5)
        let unfolded = LinearProbeHead.unfolded(layer, mean: mean, scale: scale)
        assertClose(unfolded.weights, weights, absolute: 1e-6)
        assertClose(unfolded.bias, bias, absolute: 1e-5)
    }
}
