@testable import Layers
import XCTest
import _TestSupport

/// The AVX2 kernels (`KernelChoice.automatic` on this CPU) and the portable path (`.portable`), each against
/// `ReferenceConvolution.direct`, on shapes chosen to hit every branch of the vector code: channel counts below,
/// at and above multiples of 8 and 16, rows that leave 1–5 pixels after the 6-pixel tiles, rows wide enough for
/// several four-pixel groups plus leftovers, both strides and lopsided padding.
final class VectorKernelTests: XCTestCase {
    let choices = KernelChoice.allCases
    let lopsided = Padding2D(top: 2, bottom: 0, left: 0, right: 2)

    func testDepthwiseKernelsMatchReference() {
        var random = SeededGenerator(seed: 11)
        let shapes: [(height: Int, width: Int, channels: Int)] = [(7, 19, 13), (6, 23, 8), (5, 30, 24), (9, 4, 3), (3, 17, 40)]
        for shape in shapes {
            for kernel in [3, 5] {
                for stride in [1, 2] {
                    for padding in [PaddingRule.tensorFlowSame, .explicit(lopsided)] {
                        let batch = 2
                        let input = random.floats(batch * shape.height * shape.width * shape.channels, in: -3...3)
                        let weights = random.floats(shape.channels * kernel * kernel)
                        let bias = random.floats(shape.channels)
                        let layer = DepthwiseConvolution2D(
                            weightsOIHW: weights, bias: bias, channels: shape.channels, kernelSize: kernel,
                            stride: stride, padding: padding, activation: .relu6)
                        let pad = padding.resolve(inputHeight: shape.height, inputWidth: shape.width, kernelSize: kernel, stride: stride)
                        let expected = ReferenceConvolution.direct(
                            input: input, batch: batch, height: shape.height, width: shape.width, inputChannels: shape.channels,
                            weightsOIHW: weights, outputChannels: shape.channels, kernelSize: kernel, groups: shape.channels,
                            stride: stride, padding: pad, bias: bias, activation: .relu6)
                        for choice in choices {
                            let actual = layer.forward(input, batch: batch, height: shape.height, width: shape.width, kernel: choice)
                            assertClose(actual, expected, "\(choice) \(shape) k\(kernel) s\(stride) \(padding)")
                        }
                    }
                }
            }
        }
    }

    func testDepthwiseWithoutActivationAndOtherKernelSizes() {
        // Kernel 1 and 7 take the vector code's generic one-pixel path; `.none` checks the open clamp.
        var random = SeededGenerator(seed: 12)
        let (batch, height, width, channels) = (1, 11, 13, 20)
        for kernel in [1, 3, 7] {
            let input = random.floats(batch * height * width * channels, in: -3...3)
            let weights = random.floats(channels * kernel * kernel)
            let bias = random.floats(channels)
            let layer = DepthwiseConvolution2D(
                weightsOIHW: weights, bias: bias, channels: channels, kernelSize: kernel,
                stride: 1, padding: .tensorFlowSame, activation: .none)
            let pad = Padding2D.tensorFlowSame(inputHeight: height, inputWidth: width, kernelSize: kernel, stride: 1)
            let expected = ReferenceConvolution.direct(
                input: input, batch: batch, height: height, width: width, inputChannels: channels, weightsOIHW: weights,
                outputChannels: channels, kernelSize: kernel, groups: channels, stride: 1, padding: pad, bias: bias)
            for choice in choices {
                assertClose(layer.forward(input, batch: batch, height: height, width: width, kernel: choice), expected, "\(choice) k\(kernel)")
            }
        }
    }

    func testPointwiseKernelsMatchReference() {
        var random = SeededGenerator(seed: 13)
        let cases: [(pixels: Int, inputs: Int, outputs: Int)] = [
            (1, 1, 1), (5, 3, 7), (7, 17, 8), (13, 16, 16), (11, 9, 24), (401, 300, 37), (97, 24, 144), (50, 33, 40),
        ]
        for test in cases {
            for activation in [Activation.none, .relu6] {
                for withResidual in [false, true] {
                    let input = random.floats(test.pixels * test.inputs, in: -3...3)
                    let weights = random.floats(test.outputs * test.inputs)
                    let bias = random.floats(test.outputs)
                    let residual = withResidual ? random.floats(test.pixels * test.outputs) : nil
                    let layer = PointwiseConvolution(
                        weightsOIHW: weights, bias: bias, inputChannels: test.inputs,
                        outputChannels: test.outputs, activation: activation)
                    let expected = ReferenceConvolution.direct(
                        input: input, batch: 1, height: 1, width: test.pixels, inputChannels: test.inputs, weightsOIHW: weights,
                        outputChannels: test.outputs, kernelSize: 1, stride: 1, padding: .zero, bias: bias, activation: activation,
                        residual: residual)
                    for choice in choices {
                        let actual = layer.forward(input, pixelCount: test.pixels, residual: residual, kernel: choice)
                        assertClose(actual, expected, "\(choice) \(test) \(activation) residual \(withResidual)")
                    }
                }
            }
        }
    }

    func testStemConvolutionBothPathsMatchReference() {
        var random = SeededGenerator(seed: 14)
        let (batch, height, width, inputs, outputs, kernel) = (2, 21, 17, 3, 32, 3)
        let input = random.floats(batch * height * width * inputs, in: -3...3)
        let weights = random.floats(outputs * inputs * kernel * kernel)
        let bias = random.floats(outputs)
        let layer = Convolution2D(
            weightsOIHW: weights, bias: bias, inputChannels: inputs, outputChannels: outputs,
            kernelSize: kernel, stride: 2, padding: .tensorFlowSame, activation: .relu6)
        let pad = Padding2D.tensorFlowSame(inputHeight: height, inputWidth: width, kernelSize: kernel, stride: 2)
        let expected = ReferenceConvolution.direct(
            input: input, batch: batch, height: height, width: width, inputChannels: inputs, weightsOIHW: weights,
            outputChannels: outputs, kernelSize: kernel, stride: 2, padding: pad, bias: bias, activation: .relu6)
        for choice in choices {
            assertClose(layer.forward(input, batch: batch, height: height, width: width, kernel: choice), expected, "\(choice)")
        }
    }

    func testKernelLevelsOnThisMachine() {
        // The speed claims assume the vector paths; say loudly which ones this CPU could test.
        XCTAssertEqual(KernelChoice.automatic.level, VectorKernels.level)
        XCTAssertLessThanOrEqual(KernelChoice.avx2.level, .avx2)
        XCTAssertEqual(KernelChoice.portable.level, .portable)
        if VectorKernels.level != .avx512 { print("note: this CPU tested only up to \(VectorKernels.level)") }
    }
}
