import DetectionAnnotations
import DetectorTraining
import Foundation
import Inference
import TrainableLayers
import XCTest
import _TestSupport

/// The whole run on a tiny synthetic dataset made in the test: it must find the objects, and give the same bits
/// for the same seed and threads.
final class DetectorTrainingRunTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("detector-run-\(UUID().uuidString)")
        try SyntheticDetectionDataset.write(to: folder.appendingPathComponent("data"), count: 30, side: 160, seed: 7)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func request() throws -> DetectorTrainingRequest {
        let set = try AnnotationReader.read(folder: folder.appendingPathComponent("data").path)
        let weights = WorkbenchBinary.repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors").path
        let settings = FeatureSettings(threads: 2, usesCache: true, cacheFolder: folder.appendingPathComponent("cache").path)
        // A 160-px input (10 × 10 cells) and few epochs keep the test to seconds.
        return DetectorTrainingRequest(training: set, backbone: try Backbone.load(path: weights), featureSettings: settings,
                                       inputSide: 160, headWidth: 32, crops: 1, heldOutFraction: 0.3,
                                       schedule: DetectorHeadSchedule(epochs: 12, batchSize: 8, learningRate: 3e-3, seed: 5, threads: 2))
    }

    func testATinyDatasetIsLearnedAndTheRunIsDeterministic() throws {
        var events: [DetectorEpoch] = []
        let first = try DetectorTrainingRun.run(try request()) { event in
            if case .epoch(let epoch, _) = event { events.append(epoch) }
        }
        XCTAssertEqual(events.count, 12)
        XCTAssertEqual(first.heldOutImageCount, 9)
        XCTAssertEqual(first.trainingImageCount, 21)
        XCTAssertLessThan(events.last!.loss, events.first!.loss, "the loss falls")
        // Chance is near 0 (a box must land within IoU 0.5 of an object); the colours make the task easy.
        let heldOut = try XCTUnwrap(first.heldOut.meanAveragePrecision50)
        XCTAssertGreaterThan(heldOut, 0.6, "held-out mAP@0.5")
        XCTAssertGreaterThan(first.detector.threshold, 0)
        XCTAssertEqual(first.heldOut.labels.map(\.label), ["disc", "square"])

        // Again, with the maps now from the cache: the same head, bit for bit.
        let second = try DetectorTrainingRun.run(try request())
        XCTAssertEqual(second.detector.head.namedParameters.map(\.value), first.detector.head.namedParameters.map(\.value))
        XCTAssertEqual(second.detector.threshold, first.detector.threshold)
        XCTAssertEqual(second.epochs, first.epochs)
    }
}
