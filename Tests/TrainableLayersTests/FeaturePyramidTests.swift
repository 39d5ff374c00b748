import FileFormats
import Foundation
import Models
import TensorCore
import TrainableLayers
import XCTest
import _TestSupport

/// The detector's two maps (`EfficientNetLite0.featurePyramid`) against walks the rest of the code already trusts:
/// the inference network's own block inputs and features at 224 px, and the trainable network (a separate
/// implementation of every block) at the detector's 320 px.
final class FeaturePyramidTests: XCTestCase {
    private func network() throws -> EfficientNetLite0 {
        let path = WorkbenchBinary.repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors").path
        return try EfficientNetLite0(weightsPath: path)
    }

    func testMapSidesAtTheDetectorsSizes() {
        XCTAssertEqual(EfficientNetLite0.firstStride32Block, 11)
        XCTAssertEqual([EfficientNetLite0.stride16Channels, EfficientNetLite0.stride32Channels], [112, 320])
        for (side, fine, coarse) in [(224, 14, 7), (320, 20, 10), (384, 24, 12), (330, 21, 11)] {
            XCTAssertEqual(EfficientNetLite0.mapSide(inputSide: side, stride: 16), fine, "\(side) px at stride 16")
            XCTAssertEqual(EfficientNetLite0.mapSide(inputSide: side, stride: 32), coarse, "\(side) px at stride 32")
        }
    }

    func testAt224TheMapsAreTheBlockInputAndWhatTheHeadPools() throws {
        let network = try network()
        var random = SeededGenerator(seed: 5)
        let images = random.floats(2 * 224 * 224 * 3)
        let pyramid = network.featurePyramid(images, batch: 2, side: 224)
        // The same walk as blockInputs: equal bits.
        XCTAssertEqual(pyramid.fine, network.blockInputs(images, batch: 2, block: 11))
        // The stride-32 map through the 1×1 head and the mean is the features.
        let features = network.features(images, batch: 2)
        for item in 0..<2 {
            let map = Array(pyramid.coarse[(item * 49 * 320)..<((item + 1) * 49 * 320)])
            let head = network.head.forward(map, pixelCount: 49)
            var mean = [Float](repeating: 0, count: 1280)
            for (offset, value) in head.enumerated() { mean[offset % 1280] += value / 49 }
            assertClose(mean, Array(features[(item * 1280)..<((item + 1) * 1280)]), absolute: 1e-5, "image \(item)")
        }
    }

    func testAt320TheMapsMatchTheTrainableNetwork() throws {
        let network = try network()
        var random = SeededGenerator(seed: 6)
        let images = random.floats(320 * 320 * 3)
        let pyramid = network.featurePyramid(images, batch: 1, side: 320)
        XCTAssertEqual([pyramid.fineSide, pyramid.coarseSide], [20, 10])
        let trainable = TrainableEfficientNetLite0(backbone: network, trainableFrom: .stem)
        let cache = try XCTUnwrap(trainable.forward(Tensor(shape: [1, 320, 320, 3], storage: images), mode: .training).cache)
        // Two implementations of the same blocks (the trainable one scales after each convolution): Float rounding.
        assertClose(pyramid.fine, cache.blocks[11].input.scalars, absolute: 2e-4, relative: 2e-4)
        assertClose(pyramid.coarse, cache.headInput.scalars, absolute: 2e-4, relative: 2e-4)
    }
}
