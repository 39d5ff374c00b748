import Layers
import Models
import TrainableLayers
import XCTest
import _TestSupport

/// One whole inverted-residual block: the fast (fused) passes against the reference composition, and the
/// reference composition against central differences for its input and every parameter.
final class InvertedResidualBlockTests: XCTestCase {
    /// With expansion and residual; stride 2 with a 5×5 kernel; no expansion (like block 0).
    static let specifications = [
        EfficientNetLite0Architecture.Block(index: 0, inputChannels: 5, expandedChannels: 15, outputChannels: 5, kernelSize: 3, stride: 1),
        EfficientNetLite0Architecture.Block(index: 1, inputChannels: 3, expandedChannels: 9, outputChannels: 7, kernelSize: 5, stride: 2),
        EfficientNetLite0Architecture.Block(index: 2, inputChannels: 6, expandedChannels: 6, outputChannels: 4, kernelSize: 3, stride: 1),
    ]

    static func randomBlock(
        _ specification: EfficientNetLite0Architecture.Block,
        using random: inout SeededGenerator
    ) -> InvertedResidualBlock<Float> {
        let b = specification
        func scaleBias(_ channels: Int) -> ChannelScaleBiasLayer<Float> {
            ChannelScaleBiasLayer(scale: random.tensor([channels], in: 0.5...1.5), bias: random.tensor([channels], in: 0...1))
        }
        let expand =
            b.hasExpansion
            ? (
                PointwiseConvolutionLayer(weights: random.tensor([b.inputChannels, b.expandedChannels])),
                scaleBias(b.expandedChannels)
            ) : nil
        return InvertedResidualBlock(
            specification: b, expand: expand,
            depthwise: DepthwiseConvolutionLayer(weights: random.tensor([b.kernelSize, b.kernelSize, b.expandedChannels]), stride: b.stride),
            depthwiseScaleBias: scaleBias(b.expandedChannels),
            project: PointwiseConvolutionLayer(weights: random.tensor([b.expandedChannels, b.outputChannels])),
            projectScaleBias: scaleBias(b.outputChannels))
    }

    func testFastBlockMatchesReference() {
        var random = SeededGenerator(seed: 41)
        for specification in Self.specifications {
            let block = Self.randomBlock(specification, using: &random)
            let input = random.tensor([2, 7, 9, specification.inputChannels], in: -2...2)
            let expected = block.referenceForward(input, mode: .training)
            let gradient = random.tensor(expected.output.shape)
            let expectedBackward = block.referenceBackward(gradient, cache: expected.cache!)
            XCTAssertTrue(expected.cache!.depthwiseActivated.scalars.contains(0), "ReLU6 clamps some values")
            for kernel in KernelChoice.allCases {
                let label = "block \(specification.index), \(kernel)"
                let actual = block.forward(input, mode: .training, kernel: kernel)
                assertMatchesReference(actual.output, expected.output, label)
                XCTAssertNil(block.forward(input, mode: .inference, kernel: kernel).cache)
                let backward = block.backward(gradient, cache: actual.cache!, kernel: kernel)
                assertMatchesReference(backward.input, expectedBackward.input, "∂input, " + label)
                let (ours, theirs) = (backward.gradients, expectedBackward.gradients)
                assertMatchesReference(ours.expand?.weights, theirs.expand?.weights, "∂expand, " + label)
                assertMatchesReference(ours.expandScaleBias?.scale, theirs.expandScaleBias?.scale, "∂expand scale, " + label)
                assertMatchesReference(ours.expandScaleBias?.bias, theirs.expandScaleBias?.bias, "∂expand bias, " + label)
                assertMatchesReference(ours.depthwise.weights, theirs.depthwise.weights, "∂depthwise, " + label)
                assertMatchesReference(ours.depthwiseScaleBias.scale, theirs.depthwiseScaleBias.scale, "∂depthwise scale, " + label)
                assertMatchesReference(ours.depthwiseScaleBias.bias, theirs.depthwiseScaleBias.bias, "∂depthwise bias, " + label)
                assertMatchesReference(ours.project.weights, theirs.project.weights, "∂project, " + label)
                assertMatchesReference(ours.projectScaleBias.scale, theirs.projectScaleBias.scale, "∂project scale, " + label)
                assertMatchesReference(ours.projectScaleBias.bias, theirs.projectScaleBias.bias, "∂project bias, " + label)
                let parametersOnly = block.backward(gradient, cache: actual.cache!, computesInputGradient: false, kernel: kernel)
                XCTAssertNil(parametersOnly.input)
                XCTAssertEqual(parametersOnly.gradients, backward.gradients, "the input gradient changes no parameter gradient")
            }
        }
    }

    func testBlockGradientsMatchCentralDifferences() {
        var random = SeededGenerator(seed: 42)
        for specification in Self.specifications {
            let block = Self.randomBlock(specification, using: &random).converted(to: Double.self)
            let input = random.tensor([1, 4, 5, specification.inputChannels], in: -2...2).converted(to: Double.self)
            let forward = block.referenceForward(input, mode: .training)
            let outputGradient = random.tensor(forward.output.shape).converted(to: Double.self)
            let backward = block.referenceBackward(outputGradient, cache: forward.cache!)
            let g = backward.gradients
            typealias Block = InvertedResidualBlock<Double>
            var parameters: [(name: String, path: WritableKeyPath<Block, Tensor<Double>>, gradient: Tensor<Double>)] = [
                ("depthwise.weights", \.depthwise.weights, g.depthwise.weights),
                ("depthwiseScaleBias.scale", \.depthwiseScaleBias.scale, g.depthwiseScaleBias.scale),
                ("depthwiseScaleBias.bias", \.depthwiseScaleBias.bias, g.depthwiseScaleBias.bias),
                ("project.weights", \.project.weights, g.project.weights),
                ("projectScaleBias.scale", \.projectScaleBias.scale, g.projectScaleBias.scale),
                ("projectScaleBias.bias", \.projectScaleBias.bias, g.projectScaleBias.bias),
            ]
            if let expand = g.expand, let scaleBias = g.expandScaleBias {
                parameters += [
                    ("expand.weights", \.expand!.weights, expand.weights),
                    ("expandScaleBias.scale", \.expandScaleBias!.scale, scaleBias.scale),
                    ("expandScaleBias.bias", \.expandScaleBias!.bias, scaleBias.bias),
                ]
            }
            // Up to 40 evenly spread values per tensor (all of the smaller ones): every layer's indexing is
            // checked in full by its own test; here the composition is.
            assertLayerGradients(
                block, input: input, outputGradient: outputGradient,
                forward: { $0.referenceForward($1, mode: .inference).output },
                inputGradient: backward.input, parameters: parameters, sampling: 40, "block \(specification.index)")
        }
    }
}
