import Foundation
import Workbench
import XCTest
import _TestSupport

/// Which datasets `train` takes for a detector and where their annotations come from; what the workflow writes
/// around the run (tested in DetectorTrainingTests): the model file when fine-tuning keeps the frozen model, and
/// the page's training sections.
final class DetectorTrainingWorkflowTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("detector-workflow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// Issue 45, item 9: `--max-megapixels` reaches the annotation reader, for `train` and `evaluate` alike: a
    /// picture over the limit is refused as reading it, naming the limit given (the reader had always used 300).
    func testTheAnnotationReaderKeepsThePixelLimitOfTheRequest() throws {
        let plain = folder.appendingPathComponent("plain")
        try SyntheticDetectionDataset.write(to: plain, count: 3, side: 48, seed: 1)
        var request = DetectorTrainingWorkflowRequest(datasetPath: plain.path)
        XCTAssertEqual(try DetectorTrainingWorkflow.annotationSets(request).training.images.count, 3, "48 × 48 is under 300 megapixels")
        request.features.maximumPixels = 2000
        XCTAssertThrowsError(try DetectorTrainingWorkflow.annotationSets(request)) { error in
            XCTAssertTrue("\(error)".contains("48×48"), "\(error)")
            XCTAssertTrue("\(error)".contains("over the limit of 0 megapixels"), "the limit given, not 300: \(error)")
        }
        XCTAssertThrowsError(try DetectorEvaluationWorkflow.annotationSet(dataset: plain.path, maximumPixels: 2000)) { error in
            XCTAssertTrue("\(error)".contains("over the limit of 0 megapixels"), "\(error)")
        }
    }

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
        request.backbone = .pretrained(path: weights)
        request.features = FeatureSettings(threads: 1, usesCache: false)
        XCTAssertThrowsError(try DetectorTrainingWorkflow.run(request)) { error in
            XCTAssertEqual(
                "\(error)",
                small.appendingPathComponent("annotations.json").path
                    + ": 2 pictures with boxes; a detector needs at least 3")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: request.modelPath!), "nothing written")
    }

    /// A small, quick run's request: 128-px input, no crops, a few epochs, maps cached in the test's folder.
    private func smallRun(_ dataset: URL, model: String, epochs: Int = 3) -> DetectorTrainingWorkflowRequest {
        var request = DetectorTrainingWorkflowRequest(datasetPath: dataset.path)
        request.modelPath = folder.appendingPathComponent(model).path
        request.inputSide = 128
        request.crops = 0
        request.schedule = DetectorHeadSchedule(epochs: epochs, batchSize: 8, learningRate: 3e-3, seed: 5, threads: 2)
        request.page = .none
        return request
    }

    private func train(_ request: DetectorTrainingWorkflowRequest) throws -> DetectorTrainingWorkflowResult {
        let weights = WorkbenchBinary.repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors").path
        var request = request
        request.backbone = .pretrained(path: weights)
        request.features = FeatureSettings(threads: 2, usesCache: true, cacheFolder: folder.appendingPathComponent("cache").path)
        return try DetectorTrainingWorkflow.run(request)
    }

    /// With SOURCE_DATE_EPOCH set for the block, as a reproducible build sets it.
    private func withSourceDateEpoch<T>(_ body: () throws -> T) rethrows -> T {
        let previous = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"]
        setenv("SOURCE_DATE_EPOCH", "1764576000", 1)
        defer { if let previous { setenv("SOURCE_DATE_EPOCH", previous, 1) } else { unsetenv("SOURCE_DATE_EPOCH") } }
        return try body()
    }

    /// Issue 44: `train --fine-tune` ending "the frozen model is kept" stored a worse model than plain `train`
    /// (it skipped the refit on every picture). Kept-frozen now means the plain model, byte for byte.
    func testFineTuningThatKeepsTheFrozenModelStoresThePlainModelByteForByte() throws {
        let dataset = folder.appendingPathComponent("shapes")
        try SyntheticDetectionDataset.write(to: dataset, count: 16, side: 128, seed: 7)
        let plainRequest = smallRun(dataset, model: "plain.wbmodel")
        var tunedRequest = smallRun(dataset, model: "tuned.wbmodel")
        // Rates too small to move a Float weight: no epoch can beat the frozen head, so it is kept.
        var settings = DetectorFineTuningSettings()
        settings.epochs = 1
        settings.headLearningRate = 1e-12
        settings.backboneLearningRate = 1e-12
        settings.weightDecay = 0
        settings.warmupFraction = 0
        tunedRequest.fineTuning = settings
        let (plain, tuned) = try withSourceDateEpoch { (try train(plainRequest), try train(tunedRequest)) }
        XCTAssertEqual(tuned.result.fineTuning?.chosenEpoch, 0, "the frozen model is kept")
        XCTAssertNotNil(plain.result.refit)
        XCTAssertEqual(tuned.result.refit?.losses, plain.result.refit?.losses, "the kept frozen model is refitted as plain train's")
        XCTAssertNotNil(tuned.report.fineTuning, "the report still says what fine-tuning tried")
        let plainBytes = try XCTUnwrap(FileManager.default.contents(atPath: plain.modelPath))
        let tunedBytes = try XCTUnwrap(FileManager.default.contents(atPath: tuned.modelPath))
        XCTAssertEqual(plainBytes.count, tunedBytes.count)
        XCTAssertTrue(plainBytes == tunedBytes, "kept-frozen fine-tuning stores the plain model, byte for byte")
    }

    /// Issue 44: the detector's page lacked what the classifier's has. It now shows the loss and held-out mAP@0.5
    /// per epoch, the pictures and boxes per label in each split, the settings, and, when the held-out mAP@0.5 is
    /// 0 throughout, a warning that nothing was learned; Chromium shows it without errors or requests.
    func testThePageShowsTheCurvesTheDatasetTheSettingsAndThatNothingWasLearned() throws {
        let dataset = folder.appendingPathComponent("shapes")
        try SyntheticDetectionDataset.write(to: dataset.appendingPathComponent("Training Data"), count: 12, side: 128, seed: 8)
        try SyntheticDetectionDataset.write(to: dataset.appendingPathComponent("Testing Data"), count: 4, side: 128, seed: 9)
        var request = smallRun(dataset, model: "nothing.wbmodel", epochs: 2)
        // A rate that cannot move the head: nothing is learned.
        request.schedule.learningRate = 1e-12
        let page = folder.appendingPathComponent("nothing.html").path
        request.page = .at(page)
        let outcome = try train(request)
        XCTAssertTrue(outcome.result.learnedNothing)
        XCTAssertTrue(FileManager.default.fileExists(atPath: outcome.modelPath), "the model is written all the same")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        for expected in [
            "Held-out mAP@0.5 was 0 at every epoch", "Training loss per epoch", "Held-out mAP@0.5 per epoch", "chosen: epoch 1",
            "training pictures", "held-out boxes", "testing pictures", "Settings", "input side", "128 px", "refit on every picture",
            "score threshold stored",
        ] {
            XCTAssertTrue(html.contains(expected), expected)
        }
        let check = try PageCheck.run(page: page, screenshot: "detector-training-sections.png")
        XCTAssertEqual(check.consoleErrors, [])
        XCTAssertEqual(check.outsideRequests(page: page), [])
        // The dataset table's last row: every picture of each split (12 split into training and held-out, 4 testing).
        let held = outcome.result.heldOutImageCount
        XCTAssertTrue(
            html.contains(#"<th scope="row">all</th><td class="number">\#(12 - held)</td>"#)
                && html.contains(#"<td class="number">\#(held)</td>"#) && html.contains(#"<td class="number">4</td>"#),
            html)
        for text in ["Held-out mAP@0.5 was 0 at every epoch", "Dataset", "Settings", "Training loss per epoch"] {
            XCTAssertTrue(check.text.contains(text), text)
        }
    }
}
