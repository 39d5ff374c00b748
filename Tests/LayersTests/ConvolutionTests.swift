import Layers
import XCTest
import _TestSupport

/// Every fast convolution kernel against `ReferenceConvolution.direct` on odd shapes, both strides, asymmetric
/// paddings and batches larger than one.
final class ConvolutionTests: XCTestCase {
    /// Asymmetric on purpose: more below and to the left, like nothing TF SAME would produce.
    let lopsided = Padding2D(top: 0, bottom: 2, left: 1, right: 0)

    func testTensorFlowSamePadding() {
        // Values worked out by hand from the formula in the EfficientNet-Lite0 reference README.
        XCTAssertTrue(Padding2D.tensorFlowSame(inputSize: 224, kernelSize: 3, stride: 2) == (0, 1))
        XCTAssertTrue(Padding2D.tensorFlowSame(inputSize: 112, kernelSize: 5, stride: 2) == (1, 2))
        XCTAssertTrue(Padding2D.tensorFlowSame(inputSize: 56, kernelSize: 3, stride: 1) == (1, 1))
        XCTAssertTrue(Padding2D.tensorFlowSame(inputSize: 14, kernelSize: 5, stride: 1) == (2, 2))
        XCTAssertTrue(Padding2D.tensorFlowSame(inputSize: 7, kernelSize: 3, stride: 2) == (1, 1))
        XCTAssertTrue(Padding2D.tensorFlowSame(inputSize: 9, kernelSize: 5, stride: 2) == (2, 2))
        XCTAssertTrue(Padding2D.tensorFlowSame(inputSize: 1, kernelSize: 1, stride: 2) == (0, 0))
        let padding = Padding2D.tensorFlowSame(inputHeight: 224, inputWidth: 7, kernelSize: 3, stride: 2)
        XCTAssertEqual(padding, Padding2D(top: 0, bottom: 1, left: 1, right: 1))
        XCTAssertEqual(convolutionOutputSize(inputSize: 224, kernelSize: 3, stride: 2, before: 0, after: 1), 112)
    }

    func testStemLikeConvolutionMatchesReference() {
        var random = SeededGenerator(seed: 1)
        let cases:
            [(batch: Int, height: Int, width: Int, inputs: Int, outputs: Int, kernel: Int, stride: Int, padding: PaddingRule, activation: Activation)] =
                [
                    (2, 9, 11, 3, 5, 3, 2, .tensorFlowSame, .relu6),
                    (3, 8, 10, 3, 7, 3, 2, .tensorFlowSame, .none),
                    (2, 7, 9, 4, 6, 3, 1, .explicit(lopsided), .relu6),
                    (2, 11, 7, 2, 3, 5, 2, .explicit(lopsided), .none),
                    (2, 23, 25, 3, 9, 3, 1, .tensorFlowSame, .relu6),  // 1150 output pixels: several im2col tiles
                ]
        for test in cases {
            let input = random.floats(test.batch * test.height * test.width * test.inputs, in: -3...3)
            let weights = random.floats(test.outputs * test.inputs * test.kernel * test.kernel)
            let bias = random.floats(test.outputs)
            let layer = Convolution2D(
                weightsOIHW: weights, bias: bias, inputChannels: test.inputs, outputChannels: test.outputs,
                kernelSize: test.kernel, stride: test.stride, padding: test.padding, activation: test.activation)
            let padding = test.padding.resolve(inputHeight: test.height, inputWidth: test.width, kernelSize: test.kernel, stride: test.stride)
            let expected = ReferenceConvolution.direct(
                input: input, batch: test.batch, height: test.height, width: test.width, inputChannels: test.inputs,
                weightsOIHW: weights, outputChannels: test.outputs, kernelSize: test.kernel, stride: test.stride,
                padding: padding, bias: bias, activation: test.activation)
            let actual = layer.forward(input, batch: test.batch, height: test.height, width: test.width)
            assertClose(actual, expected, "\(test)")
            if test.activation == .relu6 { XCTAssertTrue(expected.contains(6) && expected.contains(0), "the case should exercise both clamps") }
        }
    }

    func testDepthwiseConvolutionMatchesReference() {
        var random = SeededGenerator(seed: 2)
        for kernel in [3, 5] {
            for stride in [1, 2] {
                for padding in [PaddingRule.tensorFlowSame, .explicit(lopsided)] {
                    for activation in [Activation.none, .relu6] {
                        let (batch, height, width, channels) = (2, 9, 12, 13)
                        let input = random.floats(batch * height * width * channels, in: -3...3)
                        let weights = random.floats(channels * kernel * kernel)
                        let bias = random.floats(channels)
                        let layer = DepthwiseConvolution2D(
                            weightsOIHW: weights, bias: bias, channels: channels, kernelSize: kernel,
                            stride: stride, padding: padding, activation: activation)
                        let pad = padding.resolve(inputHeight: height, inputWidth: width, kernelSize: kernel, stride: stride)
                        let expected = ReferenceConvolution.direct(
                            input: input, batch: batch, height: height, width: width, inputChannels: channels,
                            weightsOIHW: weights, outputChannels: channels, kernelSize: kernel, groups: channels,
                            stride: stride, padding: pad, bias: bias, activation: activation)
                        let actual = layer.forward(input, batch: batch, height: height, width: width)
                        assertClose(actual, expected, "k\(kernel) s\(stride) \(padding) \(activation)")
                    }
                }
            }
        }
    }

    func testDepthwiseOnInputsSmallerThanTheKernel() {
        // A 1-pixel-wide input with a wide padding: most taps fall outside, which exercises the column bounds.
        var random = SeededGenerator(seed: 3)
        let (batch, height, width, channels, kernel) = (2, 3, 1, 5, 5)
        let padding = Padding2D(top: 2, bottom: 3, left: 2, right: 3)
        let input = random.floats(batch * height * width * channels)
        let weights = random.floats(channels * kernel * kernel)
        let bias = random.floats(channels)
        for stride in [1, 2] {
            let layer = DepthwiseConvolution2D(
                weightsOIHW: weights, bias: bias, channels: channels, kernelSize: kernel,
                stride: stride, padding: .explicit(padding), activation: .none)
            let expected = ReferenceConvolution.direct(
                input: input, batch: batch, height: height, width: width, inputChannels: channels, weightsOIHW: weights,
                outputChannels: channels, kernelSize: kernel, groups: channels, stride: stride, padding: padding, bias: bias)
            assertClose(layer.forward(input, batch: batch, height: height, width: width), expected, "stride \(stride)")
        }
    }

    func testPointwiseConvolutionMatchesReference() {
        var random = SeededGenerator(seed: 4)
        let (batch, height, width, inputs, outputs) = (2, 17, 19, 7, 13)  // 646 pixels: two product tiles
        let pixels = batch * height * width
        for activation in [Activation.none, .relu6] {
            for withResidual in [false, true] {
                let input = random.floats(pixels * inputs, in: -3...3)
                let weights = random.floats(outputs * inputs)
                let bias = random.floats(outputs)
                let residual = withResidual ? random.floats(pixels * outputs) : nil
                let layer = PointwiseConvolution(
                    weightsOIHW: weights, bias: bias, inputChannels: inputs, outputChannels: outputs, activation: activation)
                let expected = ReferenceConvolution.direct(
                    input: input, batch: batch, height: height, width: width, inputChannels: inputs, weightsOIHW: weights,
                    outputChannels: outputs, kernelSize: 1, stride: 1, padding: .zero, bias: bias, activation: activation,
                    residual: residual)
                assertClose(layer.forward(input, pixelCount: pixels, residual: residual), expected, "\(activation) residual \(withResidual)")
            }
        }
    }

    func testBatchNormFoldingMatchesConvolutionThenNormalisation() {
        var random = SeededGenerator(seed: 5)
        let (batch, height, width, inputs, outputs, kernel) = (2, 5, 6, 3, 4, 3)
        let epsilon: Float = 1e-3
        let input = random.floats(batch * height * width * inputs)
        let weights = random.floats(outputs * inputs * kernel * kernel)
        let scale = random.floats(outputs, in: 0.5...2), shift = random.floats(outputs)
        let mean = random.floats(outputs), variance = random.floats(outputs, in: 0.01...3)
        let padding = Padding2D(top: 1, bottom: 1, left: 1, right: 1)
        let plain = ReferenceConvolution.direct(
            input: input, batch: batch, height: height, width: width, inputChannels: inputs,
            weightsOIHW: weights, outputChannels: outputs, kernelSize: kernel, stride: 1, padding: padding)
        let normalised = plain.enumerated().map { index, value in
            let channel = index % outputs
            return (value - mean[channel]) / (variance[channel] + epsilon).squareRoot() * scale[channel] + shift[channel]
        }
        let folded = BatchNormFolding.fold(
            weights: weights, outputChannels: outputs, scale: scale, shift: shift,
            mean: mean, variance: variance, epsilon: epsilon)
        let actual = ReferenceConvolution.direct(
            input: input, batch: batch, height: height, width: width, inputChannels: inputs,
            weightsOIHW: folded.weights, outputChannels: outputs, kernelSize: kernel,
            stride: 1, padding: padding, bias: folded.bias)
        assertClose(actual, normalised)
    }
}
