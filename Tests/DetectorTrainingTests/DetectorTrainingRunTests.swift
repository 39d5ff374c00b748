import Detection
import DetectionAnnotations
import DetectorTraining
import Foundation
import ImageCodecs
import Inference
import TrainableLayers
import XCTest
import _TestSupport

/// The whole run on a tiny synthetic dataset made in the test: it must find the objects, and give the same bits
/// for the same seed and threads.
final class DetectorTrainingRunTests: XCTestCase {
    /// One dataset and one map cache for the class: the maps dominate these tests in a debug build, and every test
    /// trains on the same pictures (the first test to run computes them; each test's own files get unique names).
    private static let sharedFolder = FileManager.default.temporaryDirectory.appendingPathComponent("detector-run-\(UUID().uuidString)")
    private var folder: URL { Self.sharedFolder }

    override class func setUp() {
        super.setUp()
        do {
            try SyntheticDetectionDataset.write(to: sharedFolder.appendingPathComponent("data"), count: 20, side: 128, seed: 7)
        } catch {
            XCTFail("could not write the dataset: \(error)")
        }
    }

    override class func tearDown() {
        try? FileManager.default.removeItem(at: sharedFolder)
        super.tearDown()
    }

    private func request() throws -> DetectorTrainingRequest {
        let set = try AnnotationReader.read(folder: folder.appendingPathComponent("data").path)
        let weights = WorkbenchBinary.repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors").path
        let settings = FeatureSettings(threads: 2, usesCache: true, cacheFolder: folder.appendingPathComponent("cache").path)
        // A 128-px input (8 × 8 cells), no crops and few epochs keep the test short (the maps dominate in a debug build).
        return DetectorTrainingRequest(
            training: set, backbone: try Backbone.load(path: weights), featureSettings: settings,
            inputSide: 128, headWidth: 32, crops: 0, heldOutFraction: 0.3,
            schedule: DetectorHeadSchedule(epochs: 12, batchSize: 8, learningRate: 3e-3, seed: 5, threads: 2))
    }

    func testATinyDatasetIsLearnedAndTheRunIsDeterministic() throws {
        var events: [DetectorEpoch] = []
        let first = try DetectorTrainingRun.run(try request()) { event in
            if case .epoch(let epoch, _) = event { events.append(epoch) }
        }
        XCTAssertEqual(events.count, 12)
        XCTAssertEqual(first.heldOutImageCount, 6)
        XCTAssertEqual(first.trainingImageCount, 14)
        XCTAssertLessThan(events.last!.loss, events.first!.loss, "the loss falls")
        // Chance is near 0 (a box must land within IoU 0.5 of an object); the colours make the task easy.
        let heldOut = try XCTUnwrap(first.heldOut.meanAveragePrecision50)
        XCTAssertGreaterThan(heldOut, 0.6, "held-out mAP@0.5")
        XCTAssertGreaterThan(first.detector.threshold, 0)
        XCTAssertEqual(first.heldOut.labels.map(\.label), ["disc", "square"])
        XCTAssertFalse(first.learnedNothing)

        // Again, with the maps now from the cache: the same model file, byte for byte.
        let second = try DetectorTrainingRun.run(try request())
        XCTAssertEqual(second.epochs, first.epochs)
        let backbone = try request().backbone
        var files: [Data] = []
        for (index, result) in [first, second].enumerated() {
            let path = folder.appendingPathComponent("model-\(index).wbmodel").path
            try result.detector.modelFile(
                backbone: backbone, trainingReportJSON: "{}", creationDate: "2026-11-27T08:00:00Z",
                workbenchVersion: "0.1.0"
            ).write(path: path)
            files.append(try XCTUnwrap(FileManager.default.contents(atPath: path)))
        }
        XCTAssertEqual(files[0], files[1], "same seed and threads: the same bytes")

        // The file loads back into the same head, and as `detect` runs it, it finds the shapes of a training picture.
        let path = folder.appendingPathComponent("model-0.wbmodel").path
        let loaded = try LoadedDetector.load(path: path, settings: FeatureSettings(threads: 1, usesCache: false))
        XCTAssertEqual(loaded.detector.head.namedParameters.map(\.value), first.detector.head.namedParameters.map(\.value))
        XCTAssertEqual(loaded.detector.labels, first.detector.labels)
        XCTAssertEqual(loaded.detector.threshold, first.detector.threshold)
        let picture = try ImageLoader.load(path: folder.appendingPathComponent("data/picture-000.png").path)
        let found = TrainedObjectDetector(loaded, threads: 1).detect(in: picture, minimumConfidence: Float(loaded.detector.threshold))
        XCTAssertFalse(found.isEmpty, "boxes at the stored threshold")
        XCTAssertEqual(
            found,
            TrainedObjectDetector(loaded, threads: 2).detect(in: [picture, picture], minimumConfidence: Float(loaded.detector.threshold) / 2)[1]
                .filter { $0.confidence >= Float(loaded.detector.threshold) })
    }

    /// Issue 44: a run whose held-out mAP@0.5 is 0 at every epoch stored a threshold without a word. It still
    /// returns a model (a refit on every picture may yet be of use; the held-out pictures are few), and says so.
    func testARunThatLearnsNothingOnTheHeldOutPicturesSaysSo() throws {
        var request = try request()
        // One epoch at a rate that cannot move the head from its start: its boxes find nothing.
        request.schedule.epochs = 1
        request.schedule.learningRate = 1e-12
        request.refit = nil
        let result = try DetectorTrainingRun.run(request)
        XCTAssertEqual(result.epochs.map(\.heldOutMeanAveragePrecision50), [0])
        XCTAssertEqual(result.heldOut.meanAveragePrecision50, 0)
        XCTAssertTrue(result.learnedNothing)
        XCTAssertEqual(result.detector.labels, ["disc", "square"], "a model is still returned")
    }

    /// Issue 45, item 9: a negative whose header does not read was left out with a note, but a truncated one (its
    /// header whole) stopped the run when its pixels would not decode. One rule now: both are left out, with a note.
    func testATruncatedNegativeIsLeftOutLikeOneWithABadHeader() throws {
        let data = folder.appendingPathComponent("with-negatives")
        try? FileManager.default.removeItem(at: data)
        try FileManager.default.copyItem(at: folder.appendingPathComponent("data"), to: data)
        let whole = try Data(contentsOf: data.appendingPathComponent("picture-000.png"))
        try whole.prefix(whole.count / 2).write(to: data.appendingPathComponent("negative-truncated.png"))
        try Data("not a picture at all".utf8).write(to: data.appendingPathComponent("negative-bad-header.png"))
        var request = try request()
        request.training = try AnnotationReader.read(folder: data.path)
        XCTAssertEqual(request.training.negatives.map(\.name), ["negative-truncated.png"], "its header reads")
        XCTAssertTrue(request.training.notes.contains { $0.contains("negative-bad-header.png") && $0.hasSuffix("left out)") })
        request.schedule.epochs = 1
        request.refit = nil
        var notes: [String] = []
        let result = try DetectorTrainingRun.run(request) { event in
            if case .note(let note) = event { notes.append(note) }
        }
        XCTAssertTrue(notes.contains { $0.contains("negative-truncated.png") && $0.hasSuffix("(a picture without an entry, left out)") }, "\(notes)")
        XCTAssertEqual(result.trainingImageCount, 14, "the annotated training pictures, without the negative left out")
    }

    func testFineTuningStartsFromTheFrozenHeadAndGivesTheSameFileTwice() throws {
        var request = try request()
        // A head stopped early and a fine-tuning that keeps teaching it at the head run's rate: the fine-tuned
        // model wins on the held-out pictures, so the kept blocks are stored and loaded below.
        request.schedule.epochs = 4
        var settings = DetectorFineTuningSettings()
        settings.epochs = 3
        settings.headLearningRate = 3e-3
        request.fineTuning = settings
        var headEpochs: [DetectorEpoch] = [], fineTuningEpochs: [DetectorEpoch] = []
        var started: Double?
        let first = try DetectorTrainingRun.run(request) { event in
            switch event {
            case .epoch(let epoch, _): headEpochs.append(epoch)
            case .fineTuningStarted(let score): started = score
            case .fineTuningEpoch(let epoch, _, let imagesPerSecond):
                XCTAssertGreaterThan(imagesPerSecond, 0)
                fineTuningEpochs.append(epoch)
            default: break
            }
        }
        let outcome = try XCTUnwrap(first.fineTuning)
        XCTAssertNil(first.refit, "fine-tuning kept an epoch, chosen on the held-out pictures: no refit, whatever the default")
        XCTAssertEqual(headEpochs.count, 4)
        XCTAssertEqual(fineTuningEpochs, outcome.epochs)
        XCTAssertEqual(outcome.epochs.map(\.epoch), [1, 2, 3])
        // Epoch 0 is the frozen run's choice: the best head epoch's held-out score.
        XCTAssertEqual(started, headEpochs.map(\.heldOutMeanAveragePrecision50).max())
        XCTAssertEqual(outcome.frozenHeldOutMeanAveragePrecision50, started)
        // The best held-out epoch, and better than the frozen head (0 here, 0.46 and 0.51 after fine-tuning epochs 2 and 3).
        let kept = try XCTUnwrap(outcome.epochs.max { $0.heldOutMeanAveragePrecision50 < $1.heldOutMeanAveragePrecision50 })
        XCTAssertEqual(outcome.chosenEpoch, kept.epoch)
        XCTAssertGreaterThan(kept.heldOutMeanAveragePrecision50, try XCTUnwrap(started))
        XCTAssertNotEqual(first.backbone.identifier, request.backbone.identifier, "the kept epoch's blocks are stored")
        XCTAssertTrue(outcome.trainedTensorNames.contains("_blocks.15._project_conv.weight"))
        XCTAssertFalse(outcome.trainedTensorNames.contains("_conv_head.weight"), "the classifier's 1×1 head does not train")

        let second = try DetectorTrainingRun.run(request)
        XCTAssertEqual(second.fineTuning?.epochs, outcome.epochs)
        var files: [Data] = []
        for (index, result) in [first, second].enumerated() {
            let path = folder.appendingPathComponent("tuned-\(index).wbmodel").path
            try result.detector.modelFile(
                backbone: result.backbone, trainingReportJSON: "{}", creationDate: "2026-11-27T08:00:00Z",
                workbenchVersion: "0.1.0"
            ).write(path: path)
            files.append(try XCTUnwrap(FileManager.default.contents(atPath: path)))
        }
        XCTAssertEqual(files[0], files[1], "same seed and threads: the same bytes")
        // As `detect` loads it: the stored blocks give the maps the run scored its testing pictures with.
        let loaded = try LoadedDetector.load(
            path: folder.appendingPathComponent("tuned-0.wbmodel").path,
            settings: FeatureSettings(threads: 1, usesCache: false))
        XCTAssertEqual(loaded.extractor.backbone.identifier, first.backbone.identifier)
        XCTAssertEqual(loaded.detector.head.namedParameters.map(\.value), first.detector.head.namedParameters.map(\.value))
    }

    func testRefitTrainsANewHeadOnEveryPictureForTheChosenEpochCount() throws {
        var request = try request()
        request.schedule.epochs = 6
        request.refit = nil
        // The training pictures again as testing pictures: which head scores them is what is checked.
        request.testing = request.training
        let plain = try DetectorTrainingRun.run(request)
        XCTAssertNil(plain.refit)
        request.refit = .chosenEpoch
        var refitEpochs: [(epoch: Int, total: Int, pictures: Int)] = []
        let refitted = try DetectorTrainingRun.run(request) { event in
            if case .refitEpoch(let epoch, let total, _, let pictures) = event { refitEpochs.append((epoch, total, pictures)) }
        }
        let refit = try XCTUnwrap(refitted.refit)
        // The choice is made as before (the same epochs, held-out scores and threshold), then a new head learns
        // from all 20 pictures, held-out ones included, for the chosen number of epochs.
        XCTAssertEqual(refitted.epochs, plain.epochs)
        XCTAssertEqual(refitted.chosenEpoch, plain.chosenEpoch)
        XCTAssertEqual(refitted.heldOut, plain.heldOut)
        XCTAssertEqual(refitted.detector.threshold, plain.detector.threshold)
        XCTAssertEqual(refit.pictures, plain.trainingImageCount + plain.heldOutImageCount)
        XCTAssertEqual(refit.epochs, plain.chosenEpoch)
        XCTAssertEqual(refit.losses.count, plain.chosenEpoch)
        XCTAssertEqual(refitEpochs.map(\.epoch), Array(1...plain.chosenEpoch))
        XCTAssertTrue(refitEpochs.allSatisfy { $0.total == plain.chosenEpoch && $0.pictures == 20 })
        XCTAssertNotEqual(refitted.detector.head.namedParameters.map(\.value), plain.detector.head.namedParameters.map(\.value))
        // The held-out pictures keep the chosen head's boxes; the testing pictures get the stored (refitted) head's.
        XCTAssertEqual(refitted.heldOutPictures.map(\.evaluated), plain.heldOutPictures.map(\.evaluated))
        let plainTesting = try XCTUnwrap(plain.testingPictures).map(\.evaluated)
        let refittedTesting = try XCTUnwrap(refitted.testingPictures).map(\.evaluated)
        XCTAssertEqual(refittedTesting.count, 20)
        XCTAssertNotEqual(refittedTesting, plainTesting, "the testing pictures are scored with the refitted head")
        // Deterministic: the same seed and threads give the same refitted head, bit for bit.
        let again = try DetectorTrainingRun.run(request)
        XCTAssertEqual(again.detector.head.namedParameters.map(\.value), refitted.detector.head.namedParameters.map(\.value))
        XCTAssertEqual(again.refit?.losses, refit.losses)
        XCTAssertEqual(try XCTUnwrap(again.testingPictures).map(\.evaluated), refittedTesting)
        XCTAssertEqual(refit.length, .chosenEpoch)

        // `all`: the same choice of threshold, then the whole schedule on every picture.
        request.refit = .allEpochs
        let wholeRun = try DetectorTrainingRun.run(request)
        let whole = try XCTUnwrap(wholeRun.refit)
        XCTAssertEqual(wholeRun.heldOut, plain.heldOut)
        XCTAssertEqual(wholeRun.detector.threshold, plain.detector.threshold)
        XCTAssertNotEqual(wholeRun.detector.head.namedParameters.map(\.value), plain.detector.head.namedParameters.map(\.value))
        XCTAssertEqual(whole.length, .allEpochs)
        XCTAssertEqual(whole.epochs, 6)
        XCTAssertEqual(whole.losses.count, 6)
        if plain.chosenEpoch == 6 { XCTAssertEqual(whole.losses, refit.losses) }

        // Fine-tuning chooses its own epoch on the held-out pictures: no refit then.
        var settings = DetectorFineTuningSettings()
        settings.epochs = 1
        request.fineTuning = settings
        XCTAssertFalse(request.refits)
    }
}
