import Foundation
import TrainableLayers
import XCTest
import _TestSupport

/// The dense head and its softmax cross-entropy with label smoothing.
final class ClassifierLayerTests: XCTestCase {
    func testDenseFastMatchesReference() {
        var random = SeededGenerator(seed: 31)
        let layer = DenseLayer(weights: random.tensor([7, 19]), bias: random.tensor([7]))
        let input = random.tensor([5, 19], in: -3...3), gradient = random.tensor([5, 7])
        let expected = layer.referenceForward(input, mode: .training), actual = layer.forward(input, mode: .training)
        assertMatchesReference(actual.output, expected.output, "dense forward")
        let expectedBackward = layer.referenceBackward(gradient, cache: expected.cache!)
        let backward = layer.backward(gradient, cache: actual.cache!)
        assertMatchesReference(backward.input, expectedBackward.input, "∂input")
        assertMatchesReference(backward.gradients.weights, expectedBackward.gradients.weights, "∂weights")
        assertMatchesReference(backward.gradients.bias, expectedBackward.gradients.bias, "∂bias")
    }

    func testDenseGradientsMatchCentralDifferences() {
        var random = SeededGenerator(seed: 32)
        let layer = DenseLayer(weights: random.tensor([3, 5]), bias: random.tensor([3])).converted(to: Double.self)
        let input = random.tensor([4, 5]).converted(to: Double.self)
        let outputGradient = random.tensor([4, 3]).converted(to: Double.self)
        let backward = layer.referenceBackward(outputGradient, cache: layer.referenceForward(input, mode: .training).cache!)
        assertLayerGradients(
            layer, input: input, outputGradient: outputGradient,
            forward: { $0.referenceForward($1, mode: .inference).output },
            inputGradient: backward.input,
            parameters: [("weights", \.weights, backward.gradients.weights), ("bias", \.bias, backward.gradients.bias)])
    }

    func testCrossEntropyByHand() {
        // Logits (0, ln 3) give softmax (1/4, 3/4). Label 1 with smoothing 0.1 over 2 classes: target (0.05, 0.95).
        let logits = Tensor<Double>(shape: [1, 2], storage: [0, log(3)])
        let result = SoftmaxCrossEntropy.lossAndGradient(logits: logits, labels: [1], labelSmoothing: 0.1, normalizer: 1)
        XCTAssertEqual(result.loss, -(0.05 * log(0.25) + 0.95 * log(0.75)), accuracy: 1e-12)
        XCTAssertEqual(result.logitGradient.storage[0], 0.25 - 0.05, accuracy: 1e-12)
        XCTAssertEqual(result.logitGradient.storage[1], 0.75 - 0.95, accuracy: 1e-12)
        // Without smoothing it is the plain negative log-likelihood; the normalizer divides loss and gradient.
        let plain = SoftmaxCrossEntropy.lossAndGradient(logits: logits, labels: [0], labelSmoothing: 0, normalizer: 4)
        XCTAssertEqual(plain.loss, -log(0.25) / 4, accuracy: 1e-12)
        XCTAssertEqual(plain.logitGradient.storage[0], (0.25 - 1) / 4, accuracy: 1e-12)
        XCTAssertEqual(plain.logitGradient.storage[1], 0.75 / 4, accuracy: 1e-12)
    }

    func testCrossEntropyIsStableForLargeLogits() {
        let logits = Tensor<Float>(shape: [1, 3], storage: [1000, 0, -1000])
        let result = SoftmaxCrossEntropy.lossAndGradient(logits: logits, labels: [0], labelSmoothing: 0, normalizer: 1)
        XCTAssertEqual(result.loss, 0, accuracy: 1e-9)
        XCTAssertTrue(result.logitGradient.scalars.allSatisfy(\.isFinite))
    }

    func testCrossEntropyGradientMatchesCentralDifferences() {
        var random = SeededGenerator(seed: 33)
        let logits = random.tensor([4, 5], in: -3...3).converted(to: Double.self)
        let labels = [0, 4, 2, 2]
        let analytic = SoftmaxCrossEntropy.lossAndGradient(logits: logits, labels: labels, labelSmoothing: 0.1, normalizer: 6)
        assertGradientMatchesCentralDifferences(
            analytic.logitGradient.scalars,
            of: { values in
                SoftmaxCrossEntropy.lossAndGradient(
                    logits: Tensor(shape: [4, 5], storage: values), labels: labels,
                    labelSmoothing: 0.1, normalizer: 6
                ).loss
            },
            at: logits.scalars)
    }

    func testCentralDifferencesOfAKnownFunction() {
        // f(x, y) = sin(x)·y² has gradient (cos(x)·y², 2·sin(x)·y): the check's own arithmetic, by hand.
        let point = [0.7, -1.3]
        let numeric = GradientCheck.centralDifferences(of: { sin($0[0]) * $0[1] * $0[1] }, at: point, indices: [0, 1])
        XCTAssertEqual(numeric[0], cos(0.7) * 1.69, accuracy: 1e-8)
        XCTAssertEqual(numeric[1], 2 * sin(0.7) * -1.3, accuracy: 1e-8)
        XCTAssertEqual(GradientCheck.sampledIndices(count: 10, limit: 4), [0, 3, 6, 9])
        XCTAssertEqual(GradientCheck.sampledIndices(count: 3, limit: 4), [0, 1, 2])
    }
}
