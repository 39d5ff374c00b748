import Layers
import TrainableLayers
import XCTest
import _TestSupport

/// The three convolutions: fast forward and backward against the naive references at every kernel level this
/// machine has, the references against central differences in double precision, and the forward references
/// against the inference path's own reference (`Layers.ReferenceConvolution`), which pins the padding.
final class ConvolutionLayerTests: XCTestCase {
    // MARK: Pointwise

    func testPointwiseFastMatchesReference() {
        var random = SeededGenerator(seed: 11)
        // Channel counts off the kernels' 8/16/32-wide blocks, pixel counts off their 4/6/12-row tiles.
        for (batch, height, width, inputs, outputs) in [(2, 3, 5, 7, 13), (3, 5, 5, 19, 9), (1, 7, 7, 33, 40)] {
            let layer = PointwiseConvolutionLayer(weights: random.tensor([inputs, outputs]))
            let input = random.tensor([batch, height, width, inputs], in: -3...3)
            let gradient = random.tensor([batch, height, width, outputs])
            let expected = layer.referenceForward(input, mode: .training)
            let expectedBackward = layer.referenceBackward(gradient, cache: expected.cache!)
            for kernel in KernelChoice.allCases {
                let label = "pointwise \(batch)×\(height)×\(width)×\(inputs)→\(outputs), \(kernel)"
                let actual = layer.forward(input, mode: .training, kernel: kernel)
                assertMatchesReference(actual.output, expected.output, label)
                let backward = layer.backward(gradient, cache: actual.cache!, kernel: kernel)
                assertMatchesReference(backward.input, expectedBackward.input, "∂input, " + label)
                assertMatchesReference(backward.gradients.weights, expectedBackward.gradients.weights, "∂weights, " + label)
                XCTAssertNil(layer.backward(gradient, cache: actual.cache!, computesInputGradient: false, kernel: kernel).input)
            }
            XCTAssertNil(layer.forward(input, mode: .inference).cache, "inference keeps no cache")
        }
    }

    func testPointwiseGradientsMatchCentralDifferences() {
        var random = SeededGenerator(seed: 12)
        let layer = PointwiseConvolutionLayer(weights: random.tensor([5, 3])).converted(to: Double.self)
        let input = random.tensor([2, 3, 2, 5]).converted(to: Double.self)
        let outputGradient = random.tensor([2, 3, 2, 3]).converted(to: Double.self)
        let backward = layer.referenceBackward(outputGradient, cache: layer.referenceForward(input, mode: .training).cache!)
        assertLayerGradients(
            layer, input: input, outputGradient: outputGradient,
            forward: { $0.referenceForward($1, mode: .inference).output },
            inputGradient: backward.input,
            parameters: [("weights", \.weights, backward.gradients.weights)])
    }

    // MARK: Depthwise

    /// Every kernel and stride the network uses, TF SAME on odd and even sizes (asymmetric on even sizes at
    /// stride 2), plus a lopsided explicit padding.
    static let depthwiseCases: [(kernel: Int, stride: Int, height: Int, width: Int, padding: PaddingRule)] = [
        (3, 1, 5, 6, .tensorFlowSame), (3, 2, 6, 8, .tensorFlowSame), (3, 2, 7, 5, .tensorFlowSame),
        (5, 1, 7, 6, .tensorFlowSame), (5, 2, 8, 10, .tensorFlowSame), (5, 2, 9, 7, .tensorFlowSame),
        (3, 1, 4, 5, .explicit(Padding2D(top: 0, bottom: 2, left: 1, right: 0))),
    ]

    func testDepthwiseFastMatchesReference() {
        var random = SeededGenerator(seed: 13)
        for test in Self.depthwiseCases {
            for channels in [5, 21, 37] {
                let layer = DepthwiseConvolutionLayer(
                    weights: random.tensor([test.kernel, test.kernel, channels]), stride: test.stride,
                    padding: test.padding)
                let input = random.tensor([2, test.height, test.width, channels], in: -3...3)
                let expected = layer.referenceForward(input, mode: .training)
                let gradient = random.tensor(expected.output.shape)
                let expectedBackward = layer.referenceBackward(gradient, cache: expected.cache!)
                for kernel in KernelChoice.allCases {
                    let label = "depthwise \(test), \(channels) channels, \(kernel)"
                    let actual = layer.forward(input, mode: .training, kernel: kernel)
                    assertMatchesReference(actual.output, expected.output, label)
                    let backward = layer.backward(gradient, cache: actual.cache!, kernel: kernel)
                    assertMatchesReference(backward.input, expectedBackward.input, "∂input, " + label)
                    assertMatchesReference(backward.gradients.weights, expectedBackward.gradients.weights, "∂weights, " + label)
                    let weightsOnly = layer.backward(gradient, cache: actual.cache!, computesInputGradient: false, kernel: kernel)
                    XCTAssertNil(weightsOnly.input)
                    assertMatchesReference(weightsOnly.gradients.weights, expectedBackward.gradients.weights, "∂weights alone, " + label)
                }
            }
        }
    }

    func testDepthwiseReferencePadsLikeTheInferencePath() {
        var random = SeededGenerator(seed: 14)
        for test in Self.depthwiseCases {
            let channels = 3
            let layer = DepthwiseConvolutionLayer(
                weights: random.tensor([test.kernel, test.kernel, channels]), stride: test.stride,
                padding: test.padding)
            let input = random.tensor([1, test.height, test.width, channels])
            var oihw = [Float](repeating: 0, count: layer.weights.count)
            for c in 0..<channels {
                for tap in 0..<(test.kernel * test.kernel) { oihw[c * test.kernel * test.kernel + tap] = layer.weights.storage[tap * channels + c] }
            }
            let padding = test.padding.resolve(inputHeight: test.height, inputWidth: test.width, kernelSize: test.kernel, stride: test.stride)
            let inference = ReferenceConvolution.direct(
                input: input.scalars, batch: 1, height: test.height, width: test.width, inputChannels: channels,
                weightsOIHW: oihw, outputChannels: channels, kernelSize: test.kernel, groups: channels, stride: test.stride,
                padding: padding)
            assertClose(layer.referenceForward(input, mode: .inference).output.scalars, inference, "\(test)")
        }
    }

    func testDepthwiseGradientsMatchCentralDifferences() {
        var random = SeededGenerator(seed: 15)
        for test in Self.depthwiseCases {
            let layer = DepthwiseConvolutionLayer(
                weights: random.tensor([test.kernel, test.kernel, 2]), stride: test.stride,
                padding: test.padding
            ).converted(to: Double.self)
            let input = random.tensor([2, test.height, test.width, 2]).converted(to: Double.self)
            let forward = layer.referenceForward(input, mode: .training)
            let outputGradient = random.tensor(forward.output.shape).converted(to: Double.self)
            let backward = layer.referenceBackward(outputGradient, cache: forward.cache!)
            assertLayerGradients(
                layer, input: input, outputGradient: outputGradient,
                forward: { $0.referenceForward($1, mode: .inference).output },
                inputGradient: backward.input,
                parameters: [("weights", \.weights, backward.gradients.weights)], "\(test)")
        }
    }

    // MARK: Stem

    static let stemCases: [(kernel: Int, stride: Int, height: Int, width: Int, inputs: Int, outputs: Int)] = [
        (3, 2, 8, 10, 3, 5), (3, 2, 7, 9, 3, 4), (3, 1, 5, 6, 2, 3), (5, 2, 9, 8, 2, 3),
        (3, 2, 40, 42, 3, 6),  // 420 output pixels per image: the backward pass's tiles straddle images
    ]

    func testStemConvolutionFastMatchesReference() {
        var random = SeededGenerator(seed: 16)
        for test in Self.stemCases {
            let layer = ConvolutionLayer(weights: random.tensor([test.kernel, test.kernel, test.inputs, test.outputs]), stride: test.stride)
            let input = random.tensor([2, test.height, test.width, test.inputs], in: -3...3)
            let expected = layer.referenceForward(input, mode: .training)
            let gradient = random.tensor(expected.output.shape)
            let expectedBackward = layer.referenceBackward(gradient, cache: expected.cache!)
            for kernel in KernelChoice.allCases {
                let label = "convolution \(test), \(kernel)"
                let actual = layer.forward(input, mode: .training, kernel: kernel)
                assertMatchesReference(actual.output, expected.output, label)
                let backward = layer.backward(gradient, cache: actual.cache!, kernel: kernel)
                assertMatchesReference(backward.input, expectedBackward.input, "∂input, " + label)
                assertMatchesReference(backward.gradients.weights, expectedBackward.gradients.weights, "∂weights, " + label)
            }
        }
    }

    func testStemReferencePadsLikeTheInferencePath() {
        var random = SeededGenerator(seed: 17)
        for test in Self.stemCases.prefix(4) {
            let layer = ConvolutionLayer(weights: random.tensor([test.kernel, test.kernel, test.inputs, test.outputs]), stride: test.stride)
            let input = random.tensor([1, test.height, test.width, test.inputs])
            let inference = Convolution2D(
                weightsHWIO: layer.weights.scalars, bias: [Float](repeating: 0, count: test.outputs),
                inputChannels: test.inputs, outputChannels: test.outputs, kernelSize: test.kernel,
                stride: test.stride, padding: .tensorFlowSame, activation: .none)
            let expected = inference.forward(input.scalars, batch: 1, height: test.height, width: test.width, kernel: .portable)
            assertClose(layer.referenceForward(input, mode: .inference).output.scalars, expected, "\(test)")
        }
    }

    func testStemGradientsMatchCentralDifferences() {
        var random = SeededGenerator(seed: 18)
        for test in Self.stemCases.prefix(4) {
            let layer = ConvolutionLayer(
                weights: random.tensor([test.kernel, test.kernel, test.inputs, test.outputs]),
                stride: test.stride
            ).converted(to: Double.self)
            let input = random.tensor([1, test.height, test.width, test.inputs]).converted(to: Double.self)
            let forward = layer.referenceForward(input, mode: .training)
            let outputGradient = random.tensor(forward.output.shape).converted(to: Double.self)
            let backward = layer.referenceBackward(outputGradient, cache: forward.cache!)
            assertLayerGradients(
                layer, input: input, outputGradient: outputGradient,
                forward: { $0.referenceForward($1, mode: .inference).output },
                inputGradient: backward.input,
                parameters: [("weights", \.weights, backward.gradients.weights)], "\(test)")
        }
    }
}
