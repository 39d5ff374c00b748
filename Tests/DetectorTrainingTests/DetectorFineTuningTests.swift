import CenterNetHead
import DetectionAnnotations
import DetectorTraining
import FileFormats
import Models
import TensorCore
import TrainableLayers
import XCTest
import _TestSupport

/// The glue `--fine-tune` adds for a detector: the trainable top continues the cached stride-16 map into the
/// stride-32 map, the head's loss gradient flows through it (a step along it lowers the loss as its first-order
/// term says), the stored tensors rebuild the trained top, and the loop is deterministic. The blocks' own backward
/// passes are checked against finite differences in `TrainableLayersTests`, the head's coarse gradient in
/// `DetectorHeadNetworkTests`.
final class DetectorFineTuningTests: XCTestCase {
    /// A 128-pixel input: 8 × 8 fine cells, 4 × 4 coarse ones.
    private let side = 128

    private let weightsPath = WorkbenchBinary.repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors").path

    private func network() throws -> EfficientNetLite0 { try EfficientNetLite0(weightsPath: weightsPath) }

    /// Two pictures' maps with one or two objects each, as the run's examples hold them.
    private func examples(_ network: EfficientNetLite0, count: Int = 2, seed: UInt64 = 5) -> (
        pyramid: FeaturePyramid, examples: [DetectorExample], images: [Float]
    ) {
        var random = SeededGenerator(seed: seed)
        let images = random.floats(count * side * side * 3)
        let pyramid = network.featurePyramid(images, batch: count, side: side)
        let grid = CenterNetGrid(inputWidth: side, inputHeight: side, stride: 16, labelCount: 2)
        let examples = (0..<count).map { item in
            var objects = [CenterNetObject(labelIndex: item % 2, box: CornerBox(left: 10, top: 20, right: 70, bottom: 90))]
            if item % 2 == 1 { objects.append(CenterNetObject(labelIndex: 0, box: CornerBox(left: 80, top: 8, right: 120, bottom: 40))) }
            return DetectorExample(maps: pyramid.packed(image: item), targets: CenterNetTargets(objects: objects, grid: grid))
        }
        return (pyramid, examples, images)
    }

    func testTheUntrainedTopContinuesTheCachedFineMapIntoTheCoarseOne() throws {
        let network = try network()
        let (pyramid, _, _) = examples(network)
        let top = DetectorBackboneTop(network: network)
        XCTAssertEqual(top.blocks.map(\.specification.index), [11, 12, 13, 14, 15])
        let fine = Tensor(shape: [2, pyramid.fineSide, pyramid.fineSide, 112], storage: pyramid.fine)
        let coarse = top.forward(fine, mode: .inference).coarse
        XCTAssertEqual(coarse.shape, [2, pyramid.coarseSide, pyramid.coarseSide, 320])
        // The trainable blocks scale after each convolution where the inference path folds: Float rounding.
        assertClose(coarse.scalars, pyramid.coarse, absolute: 2e-4, relative: 2e-4)
    }

    func testAStepAlongTheGradientLowersTheLossAndTheStoredTopRebuildsIt() throws {
        let network = try network()
        let (_, batch, images) = examples(network)
        let start = DetectorNetwork(
            top: DetectorBackboneTop(network: network),
            head: DetectorHeadNetwork<Float>(labelCount: 2, width: 16, seed: 3))
        let (loss, gradients) = start.lossAndGradients(batch: batch, inputSide: side, threads: 2)
        let again = start.lossAndGradients(batch: batch, inputSide: side, threads: 2)
        XCTAssertEqual(again.loss, loss)
        XCTAssertEqual(again.gradients, gradients, "the same threads: the same bits")
        let single = start.lossAndGradients(batch: batch, inputSide: side, threads: 1)
        XCTAssertEqual(single.loss, loss, accuracy: 1e-5, "one part or two: the same mean")

        // The blocks alone, then everything: a step of η along −g lowers the loss by about η·|g|² (first order).
        for (what, trainsHead) in [("the blocks", false), ("blocks and head", true)] {
            var squaredNorm = 0.0
            var probe = start
            probe.update(with: gradients) { name, _, gradient in
                guard trainsHead || DetectorNetwork.isBackbone(name) else { return }
                squaredNorm += gradient.scalars.reduce(0) { $0 + Double($1) * Double($1) }
            }
            XCTAssertGreaterThan(squaredNorm, 0, what)
            // A step whose first-order gain is 0.2 % of the loss: far above Float noise, small enough to be linear.
            let rate = 0.002 * loss / squaredNorm
            var moved = start
            moved.update(with: gradients) { name, parameter, gradient in
                guard trainsHead || DetectorNetwork.isBackbone(name) else { return }
                parameter.withUnsafeMutableBufferPointer { values in
                    gradient.withUnsafeBufferPointer { gradient in
                        for index in values.indices { values[index] -= Float(rate) * gradient[index] }
                    }
                }
            }
            let lowered = moved.lossAndGradients(batch: batch, inputSide: side, threads: 2).loss
            let predicted = rate * squaredNorm
            XCTAssertEqual((loss - lowered) / predicted, 1, accuracy: 0.25, "\(what): loss \(loss) → \(lowered), predicted gain \(predicted)")

            guard trainsHead else { continue }
            // The moved top stored as a model file stores it, then rebuilt by the inference network: the same map.
            let tensors = moved.top.backboneTensors(over: try SafetensorsFile.read(path: weightsPath).tensors)
            let rebuilt = try EfficientNetLite0(weights: SafetensorsFile(tensors: tensors), path: "moved")
            let pyramid = rebuilt.featurePyramid(images, batch: 2, side: side)
            let fine = Tensor(shape: [2, pyramid.fineSide, pyramid.fineSide, 112], storage: pyramid.fine)
            assertClose(moved.top.forward(fine, mode: .inference).coarse.scalars, pyramid.coarse, absolute: 2e-4, relative: 2e-4)
            XCTAssertEqual(moved.top.trainedTensorNames.filter { !$0.hasPrefix("_blocks.1") }, [], "only blocks 11–15")
            XCTAssertTrue(moved.top.trainedTensorNames.contains("_blocks.11._expand_conv.weight"))
            XCTAssertFalse(moved.top.trainedTensorNames.contains("_blocks.10._project_conv.weight"))
        }
    }

    func testTheLoopIsDeterministicForASeedAndThreads() throws {
        let network = try network()
        let (_, batch, _) = examples(network, count: 4, seed: 9)
        let perPicture = [[batch[0], batch[1]], [batch[2]], [batch[3]]]
        let schedule = DetectorHeadSchedule(epochs: 1, batchSize: 2, learningRate: 1e-3, seed: 7, threads: 2)
        var settings = DetectorFineTuningSettings()
        settings.epochs = 3
        func run() -> (DetectorNetwork, [Double]) {
            var trained = DetectorNetwork(
                top: DetectorBackboneTop(network: network),
                head: DetectorHeadNetwork<Float>(labelCount: 2, width: 16, seed: 3))
            var losses: [Double] = []
            DetectorFineTuner.train(&trained, examples: perPicture, schedule: schedule, settings: settings, inputSide: side) { epoch, loss, _, _ in
                XCTAssertEqual(epoch, losses.count + 1)
                losses.append(loss)
            }
            return (trained, losses)
        }
        let (first, firstLosses) = run(), (second, secondLosses) = run()
        XCTAssertEqual(firstLosses.count, 3)
        XCTAssertEqual(firstLosses, secondLosses)
        XCTAssertEqual(first.head.namedParameters.map(\.value), second.head.namedParameters.map(\.value))
        XCTAssertEqual(first.top.backboneTensors(over: [:]), second.top.backboneTensors(over: [:]))
        XCTAssertNotEqual(
            first.top.backboneTensors(over: [:]), DetectorBackboneTop(network: network).backboneTensors(over: [:]),
            "the blocks moved")
    }
}
