import Foundation
import Workbench
import XCTest
import _TestSupport

@testable import ClassifierTraining

/// Fine-tuning in this process (`TrainingRun` with `FineTuningSettings`), on a dataset drawn here (no Python):
/// three stratified folds that hold out each training image once, the decision after the folds, the documented
/// refits for the chosen epochs, the same bytes for the same inputs, and a frozen head kept as exactly the frozen
/// model. Kept small for a debug build: twelve 64-pixel pictures, one block, two epochs, no augmentation (the frozen
/// layers run once per picture), features cached between the runs in the test's own folder.
final class FineTuningRunTests: XCTestCase {
    /// The temporary folder holding the drawn dataset.
    nonisolated(unsafe) private static var folder: URL?

    /// Six training pictures of each of two labels (a folder of label folders, all for training): warm and cool
    /// noise with a bright square, whose frozen features the head separates at once.
    private static func dataset() throws -> URL {
        if let folder = Self.folder { return folder.appendingPathComponent("drawn") }
        let folder = try WorkbenchBinary.temporaryFolder()
        Self.folder = folder
        let root = folder.appendingPathComponent("drawn")
        var state: UInt64 = 7
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for (label, base) in [("warm", [200, 90, 40]), ("cool", [40, 110, 200])] {
            let labelFolder = root.appendingPathComponent(label)
            try FileManager.default.createDirectory(at: labelFolder, withIntermediateDirectories: true)
            for index in 0..<6 {
                let side = 64
                var pixels = [UInt8](repeating: 0, count: side * side * 3)
                let corner = Int(next() % 32)
                for y in 0..<side {
                    for x in 0..<side {
                        let inSquare = (corner..<corner + 24).contains(x) && (corner..<corner + 24).contains(y)
                        for channel in 0..<3 {
                            let noise = Int(next() % 41) - 20
                            pixels[(y * side + x) * 3 + channel] = UInt8(clamping: (inSquare ? 245 : base[channel]) + noise)
                        }
                    }
                }
                let name = "\(label)-\(index).png"
                let bytes = try PNGEncoder.encode(RGBImage(width: side, height: side, pixels: pixels), name: name)
                try Data(bytes).write(to: labelFolder.appendingPathComponent(name))
            }
        }
        return root
    }

    override class func tearDown() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
        super.tearDown()
    }

    /// The backbone set-up made, with a feature cache in the test's folder (never the user's), so each run after the
    /// first reads the pictures' features instead of computing them again.
    private func extractor() throws -> FeatureExtractor {
        let cache = try XCTUnwrap(Self.folder).appendingPathComponent("cache").path
        return FeatureExtractor(
            backbone: try Backbone.load(path: BackboneLocation.resolve()), settings: FeatureSettings(threads: 2, usesCache: true, cacheFolder: cache))
    }

    /// One block, two epochs, batches of four, two threads.
    private func settings(requiresGain: Bool) -> FineTuningSettings {
        var settings = FineTuningSettings()
        settings.trainedBlocks = 1
        settings.epochs = 2
        settings.batchSize = 4
        settings.threads = 2
        settings.requiresGain = requiresGain
        return settings
    }

    private func train(_ fineTuning: FineTuningSettings?, automatically: Bool = false) throws -> (TrainingResult, [FineTuningProgress]) {
        var request = TrainingRequest(datasetPath: try Self.dataset().path)
        request.creationDate = Date(timeIntervalSince1970: 1_700_000_000)
        request.fineTuning = fineTuning
        request.fineTunesAutomatically = automatically
        request.augmentation = .none
        var steps: [FineTuningProgress] = []
        let result = try TrainingRun.run(request, extractor: try extractor()) { event in
            if case .fineTuning(let step) = event { steps.append(step) }
        }
        return (result, steps)
    }

    /// The model file's bytes, as `write` puts them on disk.
    private func bytes(_ model: ModelFile) throws -> Data {
        let path = try XCTUnwrap(Self.folder).appendingPathComponent("\(UUID().uuidString).wbmodel").path
        try model.write(path: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Kept as asked: each of the three folds trains both epochs, the decision follows them and says so with its
    /// typed hint, then each of the three refits trains the chosen epochs; the report's folds hold out every one of
    /// the 12 training images once. A second run of the same request writes the same bytes.
    func testFoldsThenTheDecisionThenTheRefitsAndTheSameBytesTwice() throws {
        let (result, steps) = try train(settings(requiresGain: false))
        var foldEpochs: [Int: [Int]] = [:]
        var refitEpochs: [Int: [Int]] = [:]
        var decisionAt: Int?
        for (index, step) in steps.enumerated() {
            switch step {
            case .epoch(let fold, let folds, let epoch, let epochs, _, _, _, _):
                XCTAssertEqual(folds, 3)
                XCTAssertEqual(epochs, 2)
                XCTAssertNil(decisionAt, "every fold's epochs come before the decision")
                foldEpochs[fold ?? 0, default: []].append(epoch)
            case .decision(let reason, let hint):
                decisionAt = index
                XCTAssertEqual(hint, .keptFineTunedAsAsked)
                XCTAssertTrue(reason.hasSuffix(": kept fine-tuning as asked"), reason)
                XCTAssertFalse(reason.contains("--"), "the library names no option: \(reason)")
            case .refitEpoch(let refit, let refits, let epoch, _, _, _, _):
                XCTAssertNotNil(decisionAt, "the refits come after the decision")
                XCTAssertEqual(refits, 3)
                refitEpochs[refit ?? 0, default: []].append(epoch)
            default: break
            }
        }
        XCTAssertEqual(foldEpochs, [1: [1, 2], 2: [1, 2], 3: [1, 2]])
        let section = try XCTUnwrap(result.report.fineTuning)
        let decision = try XCTUnwrap(section.decision)
        XCTAssertEqual(decision.method, "3 stratified folds")
        XCTAssertTrue(decision.keptFineTuned)
        XCTAssertTrue(decision.refit)
        XCTAssertEqual(decision.reason.hasSuffix(": kept fine-tuning as asked"), true, decision.reason)
        XCTAssertTrue((1...2).contains(decision.epoch))
        XCTAssertEqual(refitEpochs, [1: Array(1...decision.epoch), 2: Array(1...decision.epoch), 3: Array(1...decision.epoch)])
        XCTAssertEqual(section.refits, 3)
        XCTAssertEqual(section.refitLosses?.count, decision.epoch)
        let folds = try XCTUnwrap(section.folds)
        XCTAssertEqual(folds.map(\.heldOutImages).reduce(0, +), 12, "each training image held out once")
        XCTAssertEqual(folds.map(\.trainingImages), folds.map { 12 - $0.heldOutImages })
        XCTAssertFalse(section.keptFrozenModel)
        XCTAssertNotNil(result.modelFile.fineTuning, "the model file records the fine-tuning")
        XCTAssertNotEqual(
            result.modelFile.backboneTensors, try Backbone.load(path: BackboneLocation.resolve()).weights.tensors,
            "the kept model's backbone is the fine-tuned one")

        let (again, _) = try train(settings(requiresGain: false))
        XCTAssertEqual(try bytes(result.modelFile), try bytes(again.modelFile), "folds, decision and refits repeat byte for byte")
    }

    /// The frozen head already answers every held-out image, so fine-tuning cannot gain the two images the rule
    /// asks: the frozen model is kept, and it is exactly the model of a run without fine-tuning (every tensor and
    /// number); only the report inside says fine-tuning was tried. The automatic choice, which declines here
    /// before any fine-tuning, gives that same model too.
    func testAKeptFrozenHeadIsExactlyTheFrozenModel() throws {
        let (frozen, _) = try train(nil)
        let (tried, steps) = try train(settings(requiresGain: true))
        let section = try XCTUnwrap(tried.report.fineTuning)
        XCTAssertTrue(section.keptFrozenModel, section.decision?.reason ?? "")
        XCTAssertEqual(section.frozenHeldOutAccuracy, 1)
        XCTAssertTrue(steps.contains { if case .decision(_, nil) = $0 { true } else { false } }, "a decision, with no hint")
        XCTAssertFalse(steps.contains { if case .refitEpoch = $0 { true } else { false } }, "nothing to refit")
        XCTAssertNil(tried.modelFile.fineTuning)
        var (expected, actual) = (frozen.modelFile, tried.modelFile)
        XCTAssertNotEqual(expected.trainingReportJSON, actual.trainingReportJSON, "the report records the attempt")
        (expected.trainingReportJSON, actual.trainingReportJSON) = ("", "")
        XCTAssertEqual(expected, actual, "the same backbone, head, calibration and metadata")

        let (declined, automaticSteps) = try train(settings(requiresGain: true), automatically: true)
        XCTAssertEqual(declined.report.fineTuningChoice?.fineTunes, false)
        XCTAssertNil(declined.report.fineTuning)
        XCTAssertFalse(automaticSteps.contains { if case .epoch = $0 { true } else { false } }, "declined before any epoch")
        var chosen = declined.modelFile
        chosen.trainingReportJSON = ""
        XCTAssertEqual(chosen, expected)
    }
}
