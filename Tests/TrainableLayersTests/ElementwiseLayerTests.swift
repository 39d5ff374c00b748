import Layers
import TrainableLayers
import XCTest
import _TestSupport

/// The parameter-light layers: scale and bias, ReLU6, the residual add and global average pooling.
final class ElementwiseLayerTests: XCTestCase {
    func testScaleBiasFastMatchesReference() {
        var random = SeededGenerator(seed: 21)
        for shape in [[2, 3, 5, 7], [1, 23, 13, 19]] {  // the second spans two of the backward pass's 256-row partial sums
            let channels = shape[3]
            let layer = ChannelScaleBiasLayer(scale: random.tensor([channels], in: -2...2), bias: random.tensor([channels]))
            let input = random.tensor(shape, in: -3...3), gradient = random.tensor(shape)
            let expected = layer.referenceForward(input, mode: .training)
            let expectedBackward = layer.referenceBackward(gradient, cache: expected.cache!)
            for kernel in KernelChoice.allCases {
                let actual = layer.forward(input, mode: .training, kernel: kernel)
                assertMatchesReference(actual.output, expected.output, "scale-bias \(shape), \(kernel)")
                let backward = layer.backward(gradient, cache: actual.cache!, kernel: kernel)
                assertMatchesReference(backward.input, expectedBackward.input, "∂input \(shape), \(kernel)")
                assertMatchesReference(backward.gradients.scale, expectedBackward.gradients.scale, "∂scale \(shape), \(kernel)")
                assertMatchesReference(backward.gradients.bias, expectedBackward.gradients.bias, "∂bias \(shape), \(kernel)")
                let parametersOnly = layer.backward(gradient, cache: actual.cache!, computesInputGradient: false, kernel: kernel)
                XCTAssertNil(parametersOnly.input)
                XCTAssertEqual(parametersOnly.gradients, backward.gradients)
            }
        }
    }

    func testScaleBiasGradientsMatchCentralDifferences() {
        var random = SeededGenerator(seed: 22)
        let layer = ChannelScaleBiasLayer(scale: random.tensor([3], in: -2...2), bias: random.tensor([3])).converted(to: Double.self)
        let input = random.tensor([2, 3, 2, 3]).converted(to: Double.self)
        let outputGradient = random.tensor([2, 3, 2, 3]).converted(to: Double.self)
        let backward = layer.referenceBackward(outputGradient, cache: layer.referenceForward(input, mode: .training).cache!)
        assertLayerGradients(
            layer, input: input, outputGradient: outputGradient,
            forward: { $0.referenceForward($1, mode: .inference).output },
            inputGradient: backward.input,
            parameters: [("scale", \.scale, backward.gradients.scale), ("bias", \.bias, backward.gradients.bias)])
    }

    func testIdentityScaleKeepsTheFoldedBias() {
        let layer = ChannelScaleBiasLayer(bias: Tensor<Float>(shape: [2], storage: [0.5, -1]))
        XCTAssertEqual(layer.scale.scalars, [1, 1])
        let output = layer.forward(Tensor(shape: [1, 1, 2, 2], storage: [1, 2, 3, 4]), mode: .inference).output
        XCTAssertEqual(output.scalars, [1.5, 1, 3.5, 3])
    }

    func testReLU6ForwardAndBackward() {
        // Hand-made: one value per region, including both corners, whose derivative PyTorch takes as 0.
        let input = Tensor<Float>(shape: [1, 1, 2, 4], storage: [-1, 0, 0.5, 5.5, 6, 7, 3, -0.25])
        let layer = ReLU6Layer<Float>()
        let forward = layer.forward(input, mode: .training)
        XCTAssertEqual(forward.output.scalars, [0, 0, 0.5, 5.5, 6, 6, 3, 0])
        let gradient = Tensor<Float>(shape: input.shape, storage: [1, 2, 3, 4, 5, 6, 7, 8])
        XCTAssertEqual(layer.backward(gradient, cache: forward.cache!).scalars, [0, 0, 3, 4, 0, 0, 7, 0])
        XCTAssertEqual(layer.referenceForward(input, mode: .inference).output, forward.output)
        XCTAssertEqual(layer.referenceBackward(gradient, cache: forward.cache!), layer.backward(gradient, cache: forward.cache!))
    }

    func testReLU6GradientMatchesCentralDifferences() {
        var random = SeededGenerator(seed: 23)
        let input = random.tensorAwayFromKinks([2, 3, 3, 4]).converted(to: Double.self)
        let outputGradient = random.tensor([2, 3, 3, 4]).converted(to: Double.self)
        let layer = ReLU6Layer<Double>()
        let inputGradient = layer.referenceBackward(outputGradient, cache: layer.referenceForward(input, mode: .training).cache!)
        XCTAssertTrue(inputGradient.scalars.contains(0) && inputGradient.scalars.contains { $0 != 0 }, "both regions exercised")
        assertLayerGradients(
            layer, input: input, outputGradient: outputGradient,
            forward: { $0.referenceForward($1, mode: .inference).output },
            inputGradient: inputGradient, parameters: [])
    }

    func testResidualAddForwardAndGradients() {
        var random = SeededGenerator(seed: 24)
        let first = random.tensor([2, 3, 3, 5]), second = random.tensor([2, 3, 3, 5])
        let layer = ResidualAddLayer<Float>()
        assertMatchesReference(layer.forward(first, second), layer.referenceForward(first, second), "residual add")
        let outputGradient = random.tensor([2, 3, 3, 5]).converted(to: Double.self)
        let reference = ResidualAddLayer<Double>(), other = second.converted(to: Double.self)
        let gradients = reference.backward(outputGradient)
        assertLayerGradients(
            reference, input: first.converted(to: Double.self), outputGradient: outputGradient,
            forward: { $0.referenceForward($1, other) }, inputGradient: gradients.first, parameters: [],
            "first operand")
        assertLayerGradients(
            reference, input: other, outputGradient: outputGradient,
            forward: { $0.referenceForward(first.converted(to: Double.self), $1) }, inputGradient: gradients.second,
            parameters: [], "second operand")
    }

    func testGlobalAveragePoolingForwardAndGradient() {
        var random = SeededGenerator(seed: 25)
        let input = random.tensor([3, 5, 7, 11])
        let layer = GlobalAveragePoolingLayer<Float>()
        let forward = layer.forward(input, mode: .training)
        assertMatchesReference(forward.output, layer.referenceForward(input, mode: .inference).output, "pooling")
        // By hand: the mean of image 1, channel 4.
        var sum: Float = 0
        for pixel in 0..<35 { sum += input.storage[(35 + pixel) * 11 + 4] }
        XCTAssertEqual(forward.output[1, 4], sum / 35, accuracy: 1e-6)

        let reference = GlobalAveragePoolingLayer<Double>(), doubleInput = input.converted(to: Double.self)
        let outputGradient = random.tensor([3, 11]).converted(to: Double.self)
        let inputGradient = reference.backward(outputGradient, cache: reference.referenceForward(doubleInput, mode: .training).cache!)
        assertLayerGradients(
            reference, input: doubleInput, outputGradient: outputGradient,
            forward: { $0.referenceForward($1, mode: .inference).output }, inputGradient: inputGradient,
            parameters: [])
    }
}
