import Layers
import Models
import TensorCore
import TrainableLayers
import XCTest
import _TestSupport

/// The whole trainable network: the same features as the inference path, gradients consistent with the loss,
/// deterministic batch splitting over threads, and a training step that lowers the loss.
final class TrainableNetworkTests: XCTestCase {
    /// The same folded weights through the same kernels, run layer by layer instead of fused over row bands: at
    /// most float rounding, far below any change of weights or padding (a one-pixel shift moves features by tenths).
    static let inferenceFeatureMaxAbs: Float = 1e-5

    func testForwardMatchesTheInferenceNetworkOnTheGoldenImages() throws {
        let backbone = try NetworkFixtures.backbone()
        let names = ["chelsea", "coffee"]
        let images = try NetworkFixtures.goldenImages(names)
        let network = TrainableEfficientNetLite0(backbone: backbone, trainableFrom: .stem)
        let features = network.forward(images, mode: .inference).features
        XCTAssertEqual(features.shape, [2, 1280])
        let inference = backbone.features(images.scalars, batch: 2)
        assertClose(features.scalars, inference, absolute: Self.inferenceFeatureMaxAbs, "against EfficientNetLite0.features")
        for (index, name) in names.enumerated() {
            assertClose(
                Array(features.storage[(index * 1280)..<((index + 1) * 1280)]), try NetworkFixtures.goldenFeatures(name),
                absolute: Tolerance.goldenFeatureMaxAbs, "\(name) against onnxruntime's features")
        }
    }

    func testStartingAtABlockContinuesTheWholeNetwork() throws {
        let backbone = try NetworkFixtures.backbone()
        let whole = TrainableEfficientNetLite0(backbone: backbone, trainableFrom: .stem)
        let top = TrainableEfficientNetLite0(backbone: backbone, trainableFrom: .block(11))
        XCTAssertEqual(top.firstBlockIndex, 11)
        XCTAssertEqual(top.inputItemShape, [14, 14, 112])
        XCTAssertEqual(TrainableEfficientNetLite0(backbone: backbone, trainableFrom: .block(15)).inputItemShape, [7, 7, 192])
        XCTAssertEqual(whole.inputItemShape, [224, 224, 3])
        var random = SeededGenerator(seed: 51)
        let images = random.tensor([2, 64, 48, 3])
        // The frozen bottom by hand: stem, scale-bias, ReLU6, blocks 0–10.
        var current = whole.stemScaleBias!.forward(whole.stem!.forward(images, mode: .inference).output, mode: .inference).output
        current = ReLU6Layer<Float>().forward(current, mode: .inference).output
        for block in whole.blocks.prefix(11) { current = block.forward(current, mode: .inference).output }
        assertClose(
            top.forward(current, mode: .inference).features.scalars, whole.forward(images, mode: .inference).features.scalars,
            absolute: 1e-6)
    }

    /// A small classifier over the whole network on 32×32 images (1×1 after the last stride).
    static func smallClassifier(trainableFrom start: TrainableEfficientNetLite0.Start) throws -> TrainableClassifier {
        var random = SeededGenerator(seed: 52)
        return TrainableClassifier(
            backbone: TrainableEfficientNetLite0(backbone: try NetworkFixtures.backbone(), trainableFrom: start),
            classifier: DenseLayer(weights: random.tensor([3, 1280], in: -0.1...0.1), bias: random.tensor([3], in: -0.1...0.1)),
            labelSmoothing: 0.1)
    }

    /// The loss after moving the parameters whose names pass `selected` by `step·gradient`.
    static func loss(
        _ model: TrainableClassifier, movedBy step: Float, along gradients: TrainableClassifier.Gradients,
        selected: (String) -> Bool, input: Tensor<Float>, labels: [Int]
    ) -> Double {
        var moved = model
        moved.update(with: gradients) { name, parameter, gradient in
            guard selected(name) else { return }
            gradient.withUnsafeBufferPointer { gradient in
                parameter.withUnsafeMutableBufferPointer { values in
                    for index in values.indices { values[index] += step * gradient[index] }
                }
            }
        }
        let logits = moved.logits(input).converted(to: Double.self)
        return SoftmaxCrossEntropy.lossAndGradient(logits: logits, labels: labels, labelSmoothing: 0.1, normalizer: labels.count).loss
    }

    func testWholeNetworkGradientMatchesDirectionalDifferences() throws {
        // Along the gradient g of one group of parameters the loss changes at rate |g|²: central differences of
        // the (float) network along g check every group's backward wiring, from the classifier down to the stem.
        let model = try Self.smallClassifier(trainableFrom: .stem)
        var random = SeededGenerator(seed: 53)
        let input = random.tensor([3, 32, 32, 3], in: -1...1), labels = [0, 2, 1]
        let (loss, gradients) = model.lossAndGradients(input, labels: labels)
        let groups: [String] = [
            "classifier.", "headScaleBias.", "head.", "blocks.15.", "blocks.9.", "blocks.3.", "blocks.0.",
            "stemScaleBias.", "stem.",
        ]
        for group in groups {
            var squaredNorm = 0.0
            var copy = model
            copy.update(with: gradients) { name, _, gradient in
                guard name.hasPrefix(group) else { return }
                squaredNorm += gradient.scalars.reduce(0) { $0 + Double($1) * Double($1) }
            }
            XCTAssertGreaterThan(squaredNorm, 0, group)
            // A step that changes the loss by about 1e-4 of itself. Measured on this test: at 1e-2 the early blocks'
            // curvature moves the ratio by up to 30 %, at 1e-3 by 5 %; at 1e-5 float rounding of the logits moves it
            // by 4 %; at 1e-4 both stay under 1 %.
            let step = Float(1e-4 * loss / squaredNorm)
            let selected: (String) -> Bool = { $0.hasPrefix(group) }
            let above = Self.loss(model, movedBy: step, along: gradients, selected: selected, input: input, labels: labels)
            let below = Self.loss(model, movedBy: -step, along: gradients, selected: selected, input: input, labels: labels)
            let numeric = (above - below) / (2 * Double(step))
            XCTAssertEqual(numeric / squaredNorm, 1, accuracy: 0.02, "\(group): directional derivative \(numeric) vs |g|² \(squaredNorm)")
        }
    }

    func testThreadsSplitTheBatchDeterministically() throws {
        let model = try Self.smallClassifier(trainableFrom: .block(15))
        var random = SeededGenerator(seed: 54)
        let input = random.tensor([5, 2, 2, 192], in: -2...2), labels = [0, 1, 2, 0, 1]
        XCTAssertEqual(TrainableClassifier.parts(batch: 5, threads: 2), [0..<3, 3..<5])
        XCTAssertEqual(TrainableClassifier.parts(batch: 5, threads: 3), [0..<2, 2..<4, 4..<5])
        XCTAssertEqual(TrainableClassifier.parts(batch: 2, threads: 4), [0..<1, 1..<2])
        let single = model.lossAndGradients(input, labels: labels, threads: 1)
        for threads in [2, 3] {
            let first = model.lossAndGradients(input, labels: labels, threads: threads)
            let second = model.lossAndGradients(input, labels: labels, threads: threads)
            XCTAssertEqual(first.loss, second.loss, "\(threads) threads")
            XCTAssertEqual(first.gradients, second.gradients, "\(threads) threads: the same bits every time")
            // Another split sums in another order: close, not necessarily equal.
            XCTAssertEqual(first.loss, single.loss, accuracy: 1e-6 * single.loss)
            assertClose(
                first.gradients.backbone.head.weights.scalars, single.gradients.backbone.head.weights.scalars,
                absolute: 1e-6, relative: 1e-4, "\(threads) threads against 1")
            assertClose(
                first.gradients.backbone.blocks[0].expand!.weights.scalars,
                single.gradients.backbone.blocks[0].expand!.weights.scalars, absolute: 1e-6, relative: 1e-4)
        }
        XCTAssertEqual(model.logits(input, threads: 2), model.logits(input, threads: 1), "logits do not depend on the split")
    }

    func testParameterNamesFollowTheLayers() throws {
        let model = try Self.smallClassifier(trainableFrom: .block(15))
        var random = SeededGenerator(seed: 55)
        let gradients = model.lossAndGradients(random.tensor([2, 1, 1, 192]), labels: [0, 1]).gradients
        var copy = model
        var names: [String] = []
        copy.update(with: gradients) { name, parameter, gradient in
            XCTAssertEqual(parameter.shape, gradient.shape, name)
            names.append(name)
        }
        XCTAssertEqual(
            names,
            [
                "blocks.15.expand.weights", "blocks.15.expandScaleBias.scale", "blocks.15.expandScaleBias.bias",
                "blocks.15.depthwise.weights", "blocks.15.depthwiseScaleBias.scale", "blocks.15.depthwiseScaleBias.bias",
                "blocks.15.project.weights", "blocks.15.projectScaleBias.scale", "blocks.15.projectScaleBias.bias",
                "head.weights", "headScaleBias.scale", "headScaleBias.bias", "classifier.weights", "classifier.bias",
            ])
    }

    func testOneGradientStepLowersTheLoss() throws {
        var model = try Self.smallClassifier(trainableFrom: .block(14))
        var random = SeededGenerator(seed: 56)
        let input = random.tensor([4, 3, 3, 192], in: -2...2), labels = [0, 1, 2, 1]
        let before = model.lossAndGradients(input, labels: labels, threads: 2)
        model.update(with: before.gradients) { _, parameter, gradient in
            gradient.withUnsafeBufferPointer { gradient in
                parameter.withUnsafeMutableBufferPointer { values in
                    for index in values.indices { values[index] -= 0.01 * gradient[index] }
                }
            }
        }
        let after = model.lossAndGradients(input, labels: labels, threads: 2)
        XCTAssertLessThan(after.loss, before.loss)
    }
}
