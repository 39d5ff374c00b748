import Models
import TensorCore
import XCTest
import _TestSupport

/// The whole network against onnxruntime's outputs in `golden.json`, on the exact 224-px inputs (both written by
/// `scripts/fixtures/make-efficientnet-fixtures.py`, which runs an ONNX graph of its own).
final class EfficientNetLite0GoldenTests: XCTestCase {
    /// Features must point the same way as the reference's: float32 sums in another order stay far above this.
    static let featureCosineMinimum = 0.99999

    func testFeaturesAndTopClassesMatchOnnxRuntime() throws {
        let network = try EfficientNetLite0(weightsPath: try ModelFixtures.weightsPath())
        let names = ["chelsea", "coffee"]
        // Both images in one batch, so the batch path is covered too.
        let input = try names.flatMap { try ModelFixtures.networkInput($0) }
        let features = network.features(input, batch: names.count)
        XCTAssertEqual(features.count, names.count * EfficientNetLite0.featureCount)
        let logits = network.imageNetLogits(features: features, batch: names.count)
        XCTAssertEqual(logits.count, names.count * EfficientNetLite0.imageNetClassCount)

        for (index, name) in names.enumerated() {
            let golden = try ModelFixtures.golden(name)
            let count = EfficientNetLite0.featureCount
            let ours = Array(features[(index * count)..<((index + 1) * count)])
            let cosine = cosineSimilarity(ours, golden.features)
            XCTAssertGreaterThanOrEqual(cosine, Self.featureCosineMinimum, "\(name): feature cosine")
            assertClose(ours, golden.features, absolute: Tolerance.goldenFeatureMaxAbs, "\(name): features")

            let classes = EfficientNetLite0.imageNetClassCount
            let row = Array(logits[(index * classes)..<((index + 1) * classes)])
            let top5 = row.indices.sorted { row[$0] > row[$1] }.prefix(5)
            XCTAssertEqual(Array(top5), golden.top5, "\(name): top-5 ImageNet classes")
        }
    }

    /// Full-size images through Workbench's decoders and preprocessing (crop, antialiased bicubic) against the
    /// reference's features from Pillow's decoding and resize: a whole pipeline, so a looser bound than above.
    static let pipelineCosineMinimum = 0.999

    func testFullSizePNGAndJPEGThroughOurPreprocessingMatchTheReference() throws {
        let network = try EfficientNetLite0(weightsPath: try ModelFixtures.weightsPath())
        for name in ["chelsea", "coffee"] {
            let golden = try ModelFixtures.golden(name)
            let fromPNG = network.features(try ModelFixtures.preprocessedInput("\(name).png"), batch: 1)
            XCTAssertGreaterThanOrEqual(cosineSimilarity(fromPNG, golden.features), Self.pipelineCosineMinimum, "\(name).png")
            let fromJPEG = network.features(try ModelFixtures.preprocessedInput("\(name).jpg"), batch: 1)
            XCTAssertGreaterThanOrEqual(
                cosineSimilarity(fromJPEG, golden.featuresFromJPEG), Self.pipelineCosineMinimum,
                "\(name).jpg")
        }
    }

    func testBatchesSpanningSeveralGroupsMatchSingleImages() throws {
        // 10 images: a group of 8 and one of 2 in the late blocks. Each image's arithmetic is the same whatever
        // its group, so the features must be identical to running it alone.
        let network = try EfficientNetLite0(weightsPath: try ModelFixtures.weightsPath())
        let images = [try ModelFixtures.networkInput("chelsea"), try ModelFixtures.networkInput("coffee")]
        let order = (0..<10).map { $0 % 3 == 0 ? 1 : 0 }
        let features = network.features(order.flatMap { images[$0] }, batch: order.count)
        let alone = images.map { network.features($0, batch: 1) }
        let count = EfficientNetLite0.featureCount
        for (index, image) in order.enumerated() {
            XCTAssertEqual(Array(features[(index * count)..<((index + 1) * count)]), alone[image], "image \(index) of the batch")
        }
    }

    func testFeatureMapsAverageToTheFeaturesOverBatchGroups() throws {
        // 9 images: a group of 8 and one of 1 in the late blocks; each map is 7 × 7 × 1280, NHWC.
        let network = try EfficientNetLite0(weightsPath: try ModelFixtures.weightsPath())
        let images = [try ModelFixtures.networkInput("chelsea"), try ModelFixtures.networkInput("coffee")]
        let order = (0..<9).map { $0 % 2 }
        let input = order.flatMap { images[$0] }
        let maps = network.featureMaps(input, batch: order.count)
        XCTAssertEqual(EfficientNetLite0.featureMapSide, 7, "224 / 32")
        let positions = 49, channels = EfficientNetLite0.featureCount
        XCTAssertEqual(maps.count, order.count * positions * channels)
        // Each image's arithmetic does not depend on its group (see the test above), so one run per image will do.
        let alone = images.map { network.features($0, batch: 1) }
        for index in order.indices {
            let map = maps[(index * positions * channels)..<((index + 1) * positions * channels)]
            var mean = [Double](repeating: 0, count: channels)
            for (offset, value) in map.enumerated() { mean[offset % channels] += Double(value) / Double(positions) }
            // The pool sums 49 Float32 values in its own order: a few ulps of the largest activations (ReLU6 ≤ 6).
            assertClose(
                mean.map(Float.init), alone[order[index]],
                absolute: 1e-5, "image \(index): mean of the map vs the pooled features")
            // A real map, not one value spread over the grid: the cat and the cup are not everywhere.
            let first = Array(map.prefix(channels)), centre = Array(map.dropFirst(24 * channels).prefix(channels))
            XCTAssertNotEqual(first, centre, "image \(index): corner and centre differ")
        }
    }

    func testConcurrentCallsGiveTheSameFeatures() throws {
        let network = try EfficientNetLite0(weightsPath: try ModelFixtures.weightsPath())
        let input = try ModelFixtures.networkInput("coffee")
        let alone = network.features(input, batch: 1)
        let results = UncheckedSendable(UnsafeMutableBufferPointer<[Float]>.allocate(capacity: 2))
        defer { results.value.deallocate() }
        Parallel.forEach(2, threads: 2) { worker in
            (results.value.baseAddress! + worker).initialize(to: network.features(input, batch: 1))
        }
        XCTAssertEqual(results.value[0], alone)
        XCTAssertEqual(results.value[1], alone)
    }
}
