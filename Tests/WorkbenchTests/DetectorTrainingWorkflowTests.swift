import Foundation
import Workbench
import XCTest
import _TestSupport

/// Which datasets `train` takes for a detector, and where their annotations come from (no training here: the
/// run is tested in DetectorTrainingTests and through the binary).
final class DetectorTrainingWorkflowTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("detector-workflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func testTheThreeLayoutsAreRecognisedAndRead() throws {
        // One folder with annotations.json.
        let plain = folder.appendingPathComponent("plain")
        try SyntheticDetectionDataset.write(to: plain, count: 4, side: 48, seed: 1)
        XCTAssertTrue(DetectorTrainingWorkflow.isDetectionDataset(plain.path))
        var sets = try DetectorTrainingWorkflow.annotationSets(DetectorTrainingWorkflowRequest(datasetPath: plain.path))
        XCTAssertEqual(sets.training.images.count, 4)
        XCTAssertNil(sets.testing)

        // Create ML's Training Data/ and Testing Data/.
        let split = folder.appendingPathComponent("split")
        try SyntheticDetectionDataset.write(to: split.appendingPathComponent("Training Data"), count: 5, side: 48, seed: 2)
        try SyntheticDetectionDataset.write(to: split.appendingPathComponent("Testing Data"), count: 3, side: 48, seed: 3)
        XCTAssertTrue(DetectorTrainingWorkflow.isDetectionDataset(split.path))
        sets = try DetectorTrainingWorkflow.annotationSets(DetectorTrainingWorkflowRequest(datasetPath: split.path))
        XCTAssertEqual(sets.training.images.count, 5)
        XCTAssertEqual(sets.testing?.images.count, 3)
        XCTAssertEqual(DetectorTrainingWorkflow.defaultModelPath(dataset: split.path), "Split.wbmodel")

        // An annotations file itself (detect --json's output is one), with a testing file beside.
        let file = plain.appendingPathComponent("annotations.json").path
        XCTAssertTrue(DetectorTrainingWorkflow.isDetectionDataset(file))
        sets = try DetectorTrainingWorkflow.annotationSets(DetectorTrainingWorkflowRequest(datasetPath: file, testingPath: file))
        XCTAssertEqual(sets.training.images.count, 4)
        XCTAssertEqual(sets.training.negatives, [], "a file alone walks no folder")
        XCTAssertEqual(sets.testing?.images.count, 4)
        XCTAssertEqual(DetectorTrainingWorkflow.defaultModelPath(dataset: file), "Plain.wbmodel")

        // A classifier's folder is not a detection dataset.
        let labels = folder.appendingPathComponent("labels/cat")
        try FileManager.default.createDirectory(at: labels, withIntermediateDirectories: true)
        XCTAssertFalse(DetectorTrainingWorkflow.isDetectionDataset(folder.appendingPathComponent("labels").path))
    }

    func testTooFewAnnotatedPicturesIsOneLine() throws {
        let small = folder.appendingPathComponent("small")
        try SyntheticDetectionDataset.write(to: small, count: 2, side: 48, seed: 4)
        var request = DetectorTrainingWorkflowRequest(datasetPath: small.path)
        request.modelPath = folder.appendingPathComponent("Small.wbmodel").path
        let weights = WorkbenchBinary.repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors").path
        XCTAssertThrowsError(
            try DetectorTrainingWorkflow.train(
                request, backbone: .pretrained(path: weights),
                features: FeatureSettings(threads: 1, usesCache: false)
            ) { _ in }
        ) { error in
            XCTAssertEqual(
                "\(error)",
                small.appendingPathComponent("annotations.json").path
                    + ": 2 pictures with boxes; a detector needs at least 3")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: request.modelPath!), "nothing written")
    }
}
