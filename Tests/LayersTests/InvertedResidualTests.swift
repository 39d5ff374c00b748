@testable import Layers
import XCTest
import _TestSupport

/// The fused inverted-residual pass (row bands, every kernel level) against three chained
/// `ReferenceConvolution.direct` calls.
final class InvertedResidualTests: XCTestCase {
    struct Case {
        let height: Int, width: Int, inputs: Int, expansion: Int, outputs: Int, kernel: Int, stride: Int
        let padding: PaddingRule
    }

    func testFusedBlockMatchesChainedReference() {
        var random = SeededGenerator(seed: 21)
        let lopsided = Padding2D(top: 0, bottom: 2, left: 2, right: 0)
        let cases = [
            Case(height: 13, width: 11, inputs: 5, expansion: 3, outputs: 5, kernel: 3, stride: 1, padding: .tensorFlowSame),
            Case(height: 14, width: 17, inputs: 6, expansion: 4, outputs: 7, kernel: 5, stride: 2, padding: .tensorFlowSame),
            Case(height: 9, width: 21, inputs: 16, expansion: 1, outputs: 8, kernel: 3, stride: 1, padding: .tensorFlowSame),
            Case(height: 12, width: 9, inputs: 4, expansion: 6, outputs: 4, kernel: 5, stride: 1, padding: .explicit(lopsided)),
            Case(
                height: 10, width: 12, inputs: 4, expansion: 6, outputs: 4, kernel: 3, stride: 1,
                padding: .explicit(Padding2D(top: 0, bottom: 2, left: 2, right: 0))),  // same size, lopsided, residual
            Case(height: 11, width: 10, inputs: 3, expansion: 6, outputs: 9, kernel: 3, stride: 2, padding: .explicit(lopsided)),
        ]
        for test in cases {
            let batch = 2
            let channels = test.inputs * test.expansion
            let input = random.floats(batch * test.height * test.width * test.inputs, in: -2...2)
            let expandWeights = random.floats(channels * test.inputs), expandBias = random.floats(channels)
            let depthwiseWeights = random.floats(channels * test.kernel * test.kernel), depthwiseBias = random.floats(channels)
            let projectWeights = random.floats(test.outputs * channels), projectBias = random.floats(test.outputs)
            let expand =
                test.expansion == 1
                ? nil
                : PointwiseConvolution(
                    weightsOIHW: expandWeights, bias: expandBias, inputChannels: test.inputs, outputChannels: channels, activation: .relu6)
            let depthwise = DepthwiseConvolution2D(
                weightsOIHW: depthwiseWeights, bias: depthwiseBias, channels: channels,
                kernelSize: test.kernel, stride: test.stride, padding: test.padding, activation: .relu6)
            let project = PointwiseConvolution(
                weightsOIHW: projectWeights, bias: projectBias, inputChannels: channels,
                outputChannels: test.outputs, activation: .none)
            let (outputHeight, outputWidth) = depthwise.outputSize(inputHeight: test.height, inputWidth: test.width)
            let addsInput = outputHeight == test.height && outputWidth == test.width && test.inputs == test.outputs

            // The reference: three direct convolutions.
            var stage = input
            if expand != nil {
                stage = ReferenceConvolution.direct(
                    input: stage, batch: batch, height: test.height, width: test.width, inputChannels: test.inputs,
                    weightsOIHW: expandWeights, outputChannels: channels, kernelSize: 1, stride: 1, padding: .zero,
                    bias: expandBias, activation: .relu6)
            }
            let pad = test.padding.resolve(inputHeight: test.height, inputWidth: test.width, kernelSize: test.kernel, stride: test.stride)
            stage = ReferenceConvolution.direct(
                input: stage, batch: batch, height: test.height, width: test.width, inputChannels: channels,
                weightsOIHW: depthwiseWeights, outputChannels: channels, kernelSize: test.kernel, groups: channels,
                stride: test.stride, padding: pad, bias: depthwiseBias, activation: .relu6)
            let expected = ReferenceConvolution.direct(
                input: stage, batch: batch, height: outputHeight, width: outputWidth, inputChannels: channels,
                weightsOIHW: projectWeights, outputChannels: test.outputs, kernelSize: 1, stride: 1, padding: .zero,
                bias: projectBias, residual: addsInput ? input : nil)

            // Budgets of one row, a few rows and the whole image: bands of every size, shared rows kept or not.
            for budget in [1, 3 * test.width * channels * 4, InvertedResidual.bandBudgetBytes] {
                for choice in KernelChoice.allCases {
                    var actual = [Float](repeating: .nan, count: expected.count)
                    let expanded = UnsafeMutablePointer<Float>.allocate(capacity: batch * test.height * test.width * channels)
                    let spatial = UnsafeMutablePointer<Float>.allocate(capacity: batch * outputHeight * outputWidth * channels)
                    defer { expanded.deallocate(); spatial.deallocate() }
                    input.withUnsafeBufferPointer { input in
                        actual.withUnsafeMutableBufferPointer { actual in
                            InvertedResidual.forward(
                                expand: expand, depthwise: depthwise, project: project, addsInput: addsInput,
                                input: input.baseAddress!, batch: batch, height: test.height, width: test.width,
                                output: actual.baseAddress!, expanded: expanded, spatial: spatial,
                                kernel: choice, bandBudgetBytes: budget)
                        }
                    }
                    assertClose(actual, expected, "\(test) budget \(budget) \(choice)")
                }
            }
        }
    }

    func testStemFusedIntoTheFirstBlockMatchesChainedReference() {
        var random = SeededGenerator(seed: 22)
        let (batch, height, width, colours, channels, outputs) = (2, 23, 19, 3, 12, 5)
        let input = random.floats(batch * height * width * colours, in: -2...2)
        let stemWeights = random.floats(channels * colours * 9), stemBias = random.floats(channels)
        let depthwiseWeights = random.floats(channels * 9), depthwiseBias = random.floats(channels)
        let projectWeights = random.floats(outputs * channels), projectBias = random.floats(outputs)
        let stem = Convolution2D(
            weightsOIHW: stemWeights, bias: stemBias, inputChannels: colours, outputChannels: channels,
            kernelSize: 3, stride: 2, padding: .tensorFlowSame, activation: .relu6)
        let depthwise = DepthwiseConvolution2D(
            weightsOIHW: depthwiseWeights, bias: depthwiseBias, channels: channels, kernelSize: 3,
            stride: 1, padding: .tensorFlowSame, activation: .relu6)
        let project = PointwiseConvolution(
            weightsOIHW: projectWeights, bias: projectBias, inputChannels: channels,
            outputChannels: outputs, activation: .none)
        let (stemHeight, stemWidth) = stem.outputSize(inputHeight: height, inputWidth: width)
        var stage = ReferenceConvolution.direct(
            input: input, batch: batch, height: height, width: width, inputChannels: colours, weightsOIHW: stemWeights,
            outputChannels: channels, kernelSize: 3, stride: 2,
            padding: .tensorFlowSame(inputHeight: height, inputWidth: width, kernelSize: 3, stride: 2), bias: stemBias, activation: .relu6)
        stage = ReferenceConvolution.direct(
            input: stage, batch: batch, height: stemHeight, width: stemWidth, inputChannels: channels, weightsOIHW: depthwiseWeights,
            outputChannels: channels, kernelSize: 3, groups: channels, stride: 1,
            padding: .tensorFlowSame(inputHeight: stemHeight, inputWidth: stemWidth, kernelSize: 3, stride: 1),
            bias: depthwiseBias, activation: .relu6)
        let expected = ReferenceConvolution.direct(
            input: stage, batch: batch, height: stemHeight, width: stemWidth, inputChannels: channels, weightsOIHW: projectWeights,
            outputChannels: outputs, kernelSize: 1, stride: 1, padding: .zero, bias: projectBias)
        for budget in [1, 2 * stemWidth * channels * 4, InvertedResidual.bandBudgetBytes] {
            for choice in KernelChoice.allCases {
                var actual = [Float](repeating: .nan, count: expected.count)
                let expanded = UnsafeMutablePointer<Float>.allocate(capacity: stemHeight * stemWidth * channels)
                let spatial = UnsafeMutablePointer<Float>.allocate(capacity: stemHeight * stemWidth * channels)
                defer { expanded.deallocate(); spatial.deallocate() }
                input.withUnsafeBufferPointer { input in
                    actual.withUnsafeMutableBufferPointer { actual in
                        InvertedResidual.forward(
                            stem: stem, depthwise: depthwise, project: project, input: input.baseAddress!, batch: batch,
                            imageHeight: height, imageWidth: width, output: actual.baseAddress!, expanded: expanded,
                            spatial: spatial, kernel: choice, bandBudgetBytes: budget, next: nil)
                    }
                }
                assertClose(actual, expected, "budget \(budget) \(choice)")
            }
        }
    }
}
