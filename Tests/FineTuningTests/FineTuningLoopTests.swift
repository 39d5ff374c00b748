import FineTuning
import Foundation
import Models
import Synchronization
import TensorCore
import TrainableLayers
import XCTest
import _TestSupport

/// Two kinds of synthetic images a network tells apart: bright on the left or on the right, with seeded noise
/// (different per epoch when `augments`, standing in for augmentation).
final class StripeImages: FineTuningInputSource {
    let augments: Bool
    let requestedEpochs = Mutex<Set<Int?>>([])
    init(augments: Bool) { self.augments = augments }

    var variesByEpoch: Bool { augments }
    var augmentationSummary: String { augments ? "noise" : "none" }

    static func label(_ sample: Int) -> Int { sample % 2 }

    func networkInputs(for samples: [Int], epoch: Int?) throws(FineTuningError) -> [Float] {
        requestedEpochs.withLock { _ = $0.insert(epoch) }
        let side = EfficientNetLite0.inputSide
        var values: [Float] = []
        values.reserveCapacity(samples.count * side * side * 3)
        for sample in samples {
            // A cheap deterministic texture (the tests run unoptimised): a different one per epoch when augmenting.
            let salt = augments ? (epoch ?? 999) + 1 : 0
            for y in 0..<side {
                for x in 0..<side {
                    let bright = (x < side / 2) == (Self.label(sample) == 0)
                    for channel in 0..<3 {
                        let texture = Float((sample &* 7919 &+ y &* 131 &+ x &* 31 &+ channel &* 17 &+ salt &* 53) % 97) / 97
                        values.append((bright ? 0.6 : -0.6) + 0.6 * texture - 0.3)
                    }
                }
            }
        }
        return values
    }
}

final class FineTuningLoopTests: XCTestCase {
    static func network() throws -> EfficientNetLite0 {
        let path = WorkbenchBinary.repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors").path
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("backbone weights not found at \(path): run scripts/setup.sh first")
            throw CocoaError(.fileNoSuchFile)
        }
        return try EfficientNetLite0(weightsPath: path)
    }

    /// A small random head on 1280 features.
    static func head(classes: Int, seed: UInt64) -> DenseLayer<Float> {
        var random = SeededGenerator(seed: seed)
        return DenseLayer(
            weights: Tensor(shape: [classes, 1280], storage: random.floats(classes * 1280, in: -0.05...0.05)),
            bias: Tensor(shape: [classes], repeating: 0))
    }

    func testBlockInputsContinueIntoTheTrainableTop() throws {
        let network = try Self.network()
        var random = SeededGenerator(seed: 5)
        let images = random.floats(2 * 224 * 224 * 3)
        for block in [0, 15] {
            let frozen = FrozenLayers(network: network, firstTrainedBlock: block).outputs(images, count: 2, threads: 2)
            let top = TrainableEfficientNetLite0(backbone: network, trainableFrom: .block(block))
            let features = top.forward(frozen, mode: .inference).features.scalars
            // The same kernels and arithmetic either way; only the late blocks' grouping differs.
            assertClose(features, network.features(images, batch: 2), absolute: 1e-4, relative: 1e-4, "from block \(block)")
        }
    }

    func testOneTrainerStepLowersTheLossOnAFixedBatch() throws {
        let network = try Self.network()
        var settings = FineTuningSettings()
        settings.trainedBlocks = 1
        settings.threads = 2
        settings.warmupFraction = 0
        // Small rates: AdamW's first step moves every parameter by about the rate, whatever its gradient's size.
        settings.backboneLearningRate = 1e-5
        settings.headLearningRate = 1e-5
        let classifier = TrainableClassifier(
            backbone: TrainableEfficientNetLite0(backbone: network, trainableFrom: .block(15)),
            classifier: Self.head(classes: 3, seed: 9), labelSmoothing: 0.1)
        var trainer = FineTuningTrainer(classifier: classifier, settings: settings, totalSteps: 10)
        var random = SeededGenerator(seed: 11)
        let input = Tensor(shape: [6, 7, 7, 192], storage: random.floats(6 * 7 * 7 * 192, in: -1...3))
        let labels = [0, 1, 2, 0, 1, 2]
        let before = trainer.train(on: input, labels: labels)
        let after = trainer.classifier.lossAndGradients(input, labels: labels, threads: 2).loss
        XCTAssertLessThan(after, before)
        XCTAssertEqual(trainer.step, 1)
        XCTAssertTrue(FineTuningTrainer.isDecayed("blocks.15.expand.weights"))
        XCTAssertFalse(FineTuningTrainer.isDecayed("headScaleBias.scale"))
        XCTAssertTrue(FineTuningTrainer.isHead("classifier.bias"))
    }

    /// The top block only, two epochs of batches of 2, rates high enough to move in that time.
    static func smallSettings(threads: Int) -> FineTuningSettings {
        var settings = FineTuningSettings()
        settings.trainedBlocks = 1
        settings.epochs = 2
        settings.batchSize = 2
        settings.threads = threads
        settings.backboneLearningRate = 1e-3
        settings.headLearningRate = 1e-3
        return settings
    }

    private func run(_ source: StripeImages, network: EfficientNetLite0, threads: Int = 2) throws -> FineTuningOutcome {
        let settings = Self.smallSettings(threads: threads)
        let training = Array(0..<4), heldOut = Array(4..<6)
        return try FineTuningLoop.run(
            network: network, head: Self.head(classes: 2, seed: 4), inputs: source,
            trainingSamples: training, trainingLabels: training.map(StripeImages.label),
            heldOutSamples: heldOut, heldOutLabels: heldOut.map(StripeImages.label),
            settings: settings, events: { _ in })
    }

    func testTheLoopIsDeterministicAndKeepsItsBestEpoch() throws {
        let network = try Self.network()
        let source = StripeImages(augments: true)
        let first = try run(source, network: network)
        let second = try run(StripeImages(augments: true), network: network)
        XCTAssertEqual(source.requestedEpochs.withLock { $0 }, [nil, 0, 1], "asked every epoch; held-out images never augmented")
        XCTAssertEqual(first.classifier.classifier.weights, second.classifier.classifier.weights)
        XCTAssertEqual(first.classifier.backbone.blocks[0].expand?.weights, second.classifier.backbone.blocks[0].expand?.weights)
        XCTAssertEqual(first.classifier.backbone.headScaleBias.scale, second.classifier.backbone.headScaleBias.scale)
        XCTAssertEqual(first.epochs.map(\.loss), second.epochs.map(\.loss))
        XCTAssertEqual(first.heldOutLogits, second.heldOutLogits)
        XCTAssertEqual(first.epochs.count, 2)
        XCTAssertEqual(first.heldOutLogits.count, 2 * 2)
        // The kept epoch is the best one on the held-out images, never worse than the start.
        let best = ([first.initialHeldOutAccuracy] + first.epochs.map(\.heldOutAccuracy)).max()!
        XCTAssertEqual(first.heldOutAccuracy, best)
        // Training changed the trained layers.
        if first.bestEpoch > 0 {
            XCTAssertNotEqual(first.classifier.backbone.headScaleBias.scale.scalars, [Float](repeating: 1, count: 1280))
        }
    }

    func testTheRefitTrainsEveryImageForItsEpochsAndIsDeterministic() throws {
        let network = try Self.network()
        let settings = Self.smallSettings(threads: 2)
        // Two batches of two a epoch: as much as the rules need, and a third of the frozen layers' work of six.
        let samples = Array(0..<4)
        func refit() throws -> FineTuningOutcome {
            try FineTuningLoop.refit(
                network: network, head: Self.head(classes: 2, seed: 4), inputs: StripeImages(augments: true),
                trainingSamples: samples, trainingLabels: samples.map(StripeImages.label),
                settings: settings, events: { _ in })
        }
        let first = try refit(), second = try refit()
        XCTAssertEqual(first.epochs.map(\.epoch), [1, 2])
        XCTAssertEqual(first.bestEpoch, 2, "nothing held out: the last epoch is the model")
        XCTAssertEqual(first.epochs.map(\.loss), second.epochs.map(\.loss))
        XCTAssertEqual(first.classifier.classifier.weights, second.classifier.classifier.weights)
        XCTAssertEqual(first.classifier.backbone.blocks[0].expand?.weights, second.classifier.backbone.blocks[0].expand?.weights)
        XCTAssertNotEqual(first.classifier.classifier.weights, Self.head(classes: 2, seed: 4).weights)
    }

    /// WiSE-FT: a run with `fineTunedWeight` w trains exactly as a plain run (same seed) and keeps the mix
    /// start + w · (trained − start), scored as that mix.
    func testAFineTunedWeightKeepsTheMixOfStartAndTrainedWeights() throws {
        let network = try Self.network()
        var settings = Self.smallSettings(threads: 1)
        settings.epochs = 1
        (settings.backboneLearningRate, settings.headLearningRate) = (1e-2, 1e-2)
        settings.requiresGain = false
        let training = Array(0..<4), heldOut = Array(4..<6)
        func run(weight: Double) throws -> FineTuningOutcome {
            settings.fineTunedWeight = weight
            return try FineTuningLoop.run(
                network: network, head: Self.head(classes: 2, seed: 4), inputs: StripeImages(augments: false),
                trainingSamples: training, trainingLabels: training.map(StripeImages.label),
                heldOutSamples: heldOut, heldOutLabels: heldOut.map(StripeImages.label),
                settings: settings, events: { _ in })
        }
        let plain = try run(weight: 1), mixed = try run(weight: 0.25)
        XCTAssertEqual(plain.epochs.map(\.loss), mixed.epochs.map(\.loss), "the training itself does not change")
        let start = TrainableClassifier(
            backbone: TrainableEfficientNetLite0(backbone: network, trainableFrom: .block(settings.firstTrainedBlock)),
            classifier: Self.head(classes: 2, seed: 4), labelSmoothing: settings.labelSmoothing)
        let expected = start.interpolated(toward: plain.classifier, weight: 0.25)
        XCTAssertEqual(mixed.classifier.parameters, expected.parameters)
        XCTAssertNotEqual(mixed.classifier.parameters, plain.classifier.parameters)
        XCTAssertNotEqual(mixed.heldOutLogits, plain.heldOutLogits, "the epoch is scored as the mix")
        settings.fineTunedWeight = 0
        XCTAssertEqual(settings.problem, "the fine-tuned weight must be above 0 and at most 1, got 0.0")
    }

    func testWithoutAugmentationTheFrozenLayersRunOncePerImage() throws {
        let network = try Self.network()
        let cached = StripeImages(augments: false)
        let outcome = try run(cached, network: network, threads: 1)
        XCTAssertEqual(cached.requestedEpochs.withLock { $0 }, [nil, 0], "the training images are read once, before epoch 1")
        XCTAssertEqual(outcome.epochs.map(\.epoch), [1, 2])
    }

    func testSettingsOutOfBoundsAreRejected() throws {
        let network = try Self.network()
        var settings = FineTuningSettings()
        settings.trainedBlocks = 17
        XCTAssertThrowsError(
            try FineTuningLoop.run(
                network: network, head: Self.head(classes: 2, seed: 1),
                inputs: StripeImages(augments: false), trainingSamples: [0],
                trainingLabels: [0], heldOutSamples: [1], heldOutLabels: [1],
                settings: settings, events: { _ in })
        ) { error in
            XCTAssertEqual("\(error)", "the trained blocks must be from 1 to 16, got 17")
        }
        settings = FineTuningSettings()
        settings.backboneLearningRate = 5
        XCTAssertEqual(settings.problem, "the backbone learning rate must be from 1e-07 to 1.0, got 5.0")
    }
}
