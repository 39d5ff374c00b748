import FileFormats
import Foundation
import ImageCodecs
import ModelFiles
import XCTest

/// A stored file of every model format version Workbench has written loads with what that version stored (the
/// policy in docs/model-file.md). The files in `Fixtures/` are written by
/// `scripts/fixtures/make-model-format-fixtures.py` from each version's documentation, never by the Swift writer;
/// `scripts/fixtures/check-model-format-fixtures.sh` showed each is byte-identical to what the Workbench of that
/// version writes for the same model. Their backbone is seven tensors under real names with tiny shapes (ModelFiles
/// checks backbone shapes only when asked to), so every file is under 2 KB.
final class StoredFormatVersionTests: XCTestCase {
    private static let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    private func load(_ name: String) throws -> ModelFile {
        try ModelFile.read(path: Self.fixtures.appendingPathComponent(name).path)
    }

    /// The pretrained (frozen) backbone the generator stores: a 3 → 2 channel stem, a 2 → 4 head convolution.
    private let pretrainedBackbone: [String: ExpectedTensor] = [
        "_conv_stem.weight": .init([2, 3, 1, 1], [0.5, -0.25, 0.125, 1.0, 0.75, -0.5]),
        "_bn0.weight": .init([2], [1.0, 0.875]),
        "_conv_head.weight": .init([4, 2, 1, 1], [0.25, -0.125, 0.5, 0.375, -0.75, 0.625, 1.5, -1.0]),
        "_bn1.weight": .init([4], [1.0, 1.125, 0.875, 1.25]),
        "_bn1.bias": .init([4], [0.0, -0.125, 0.25, 0.5]),
        "_bn1.running_mean": .init([4], [0.5, -0.5, 0.25, 0.0]),
        "_bn1.running_var": .init([4], [2.0, 0.5, 1.5, 1.0]),
    ]

    private func assertBackbone(
        _ model: ModelFile, _ expected: [String: ExpectedTensor],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(model.backboneTensors.keys.sorted(), expected.keys.sorted(), file: file, line: line)
        for (name, tensor) in expected {
            XCTAssertEqual(model.backboneTensors[name]?.shape, tensor.shape, name, file: file, line: line)
            XCTAssertEqual(model.backboneTensors[name]?.values, tensor.values, name, file: file, line: line)
        }
    }

    /// What every version stores the same way: backbone name, dates, Workbench version, the report as JSON.
    private func assertCommonFields(_ model: ModelFile, created: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(model.backboneName, "efficientnet-lite0", file: file, line: line)
        XCTAssertEqual(model.creationDate, created, file: file, line: line)
        XCTAssertEqual(model.workbenchVersion, "0.1.0", file: file, line: line)
        let report = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(model.trainingReportJSON.utf8)) as? [String: Any],
            file: file, line: line)
        XCTAssertEqual(report["labels"] as? [String], model.labels, file: file, line: line)
    }

    /// A new format version fails this until a stored file of it is added (and the generator writes one).
    func testEveryVersionUpToTheCurrentOneHasAStoredFile() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path)
        let versions = Set(
            names.compactMap { name -> Int? in
                guard name.hasPrefix("model-format-"), name.hasSuffix(".wbmodel") else { return nil }
                return Int(name.dropFirst("model-format-".count).prefix { $0.isNumber })
            })
        XCTAssertEqual(versions, Set(1...ModelFile.formatVersion), "stored files: \(names.sorted())")
    }

    /// Version 1 predates calibration (temperature 1, no threshold), versioned preprocessing and fine-tuning.
    func testVersion1() throws {
        let model = try load("model-format-1.wbmodel")
        XCTAssertEqual(model.labels, ["apple", "banana", "cherry"])
        XCTAssertEqual(model.temperature, 1)
        XCTAssertNil(model.confidenceThreshold)
        XCTAssertEqual(model.preprocessing, .efficientNetLite0)
        XCTAssertEqual(model.preprocessing.version, 1)
        XCTAssertEqual(model.preprocessing.alphaBackground, [255, 255, 255])
        XCTAssertNil(model.fineTuning)
        XCTAssertEqual(
            model.head,
            HeadTensors(
                featureMean: [0, 0.125, 0.25, 0.375], featureScale: [0.5, 0.75, 1, 1.25],
                weights: [-1, -0.875, -0.75, -0.625, -0.5, -0.375, -0.25, -0.125, 0, 0.125, 0.25, 0.375], bias: [0, 0.25, 0.5]))
        assertBackbone(model, pretrainedBackbone)
        try assertCommonFields(model, created: "2026-11-22T15:45:16Z")
    }

    /// Version 2 adds the temperature and the threshold; the preprocessing is still the unversioned description.
    func testVersion2() throws {
        let model = try load("model-format-2.wbmodel")
        XCTAssertEqual(model.labels, ["cat", "dog"])
        XCTAssertEqual(model.temperature, 1.5)
        XCTAssertEqual(model.confidenceThreshold, 0.75)
        XCTAssertEqual(model.preprocessing, .efficientNetLite0)
        XCTAssertNil(model.fineTuning)
        XCTAssertEqual(
            model.head,
            HeadTensors(
                featureMean: [0.5, 0.625, 0.75, 0.875], featureScale: [0.5, 0.75, 1, 1.25],
                weights: [-0.5, -0.375, -0.25, -0.125, 0, 0.125, 0.25, 0.375], bias: [-0.5, -0.25]))
        assertBackbone(model, pretrainedBackbone)
        try assertCommonFields(model, created: "2026-11-24T08:00:00Z")
    }

    /// The first version 3 files (3487c59 to 850f2f8) stored the unversioned preprocessing description: they mean
    /// preprocessing version 1 on white, like versions 1 and 2. This one is frozen (no record) without a threshold.
    func testVersion3WithTheUnversionedPreprocessing() throws {
        let model = try load("model-format-3-unversioned-preprocessing.wbmodel")
        XCTAssertEqual(model.labels, ["circle", "square", "triangle", "star"])
        XCTAssertEqual(model.temperature, 1.25)
        XCTAssertNil(model.confidenceThreshold)
        XCTAssertEqual(model.preprocessing, .efficientNetLite0)
        XCTAssertNil(model.fineTuning)
        XCTAssertEqual(model.backboneTrainingDescription(blockCount: 16), "pretrained ImageNet weights (frozen)")
        XCTAssertEqual(model.head.bias, [-1, -0.75, -0.5, -0.25])
        XCTAssertEqual(model.head.weights, (0..<16).map { Float($0) * 0.125 })
        assertBackbone(model, pretrainedBackbone)
        try assertCommonFields(model, created: "2026-11-26T12:30:00Z")
    }

    /// Version 3 as written today: versioned preprocessing, and a fine-tuned backbone with its record.
    func testVersion3() throws {
        let model = try load("model-format-3.wbmodel")
        XCTAssertEqual(model.labels, ["sunny", "rainy"])
        XCTAssertEqual(model.temperature, 2.25)
        XCTAssertEqual(model.confidenceThreshold, 0.625)
        XCTAssertEqual(model.preprocessing, .efficientNetLite0)
        let trained = ["_bn1.bias", "_bn1.running_mean", "_bn1.running_var", "_bn1.weight", "_conv_head.weight"]
        XCTAssertEqual(
            model.fineTuning,
            FineTuningRecord(
                firstTrainedBlock: 16, trainedTensorNames: trained, epochs: 4,
                augmentations: ["horizontal flip"]))
        XCTAssertEqual(
            model.backboneTrainingDescription(blockCount: 16),
            "fine-tuned from block 16: the final 1×1 convolution, 4 epochs, augmentations: horizontal flip")
        XCTAssertEqual(
            model.head,
            HeadTensors(
                featureMean: [1.5, 1.625, 1.75, 1.875], featureScale: [0.5, 0.75, 1, 1.25],
                weights: [0.5, 0.625, 0.75, 0.875, 1, 1.125, 1.25, 1.375], bias: [-1.5, -1.25]))
        // The trained layers with their identity batch norm carrier; the rest as pretrained.
        var fineTuned = pretrainedBackbone
        fineTuned["_conv_head.weight"] = .init([4, 2, 1, 1], [0.375, -0.25, 0.5, 0.5, -0.625, 0.75, 1.25, -0.875])
        fineTuned["_bn1.weight"] = .init([4], [1, 1, 1, 1])
        fineTuned["_bn1.bias"] = .init([4], [0.125, -0.25, 0.375, 0.25])
        fineTuned["_bn1.running_mean"] = .init([4], [0, 0, 0, 0])
        fineTuned["_bn1.running_var"] = .init([4], [Float](repeating: 0.999, count: 4))
        assertBackbone(model, fineTuned)
        try assertCommonFields(model, created: "2026-11-28T18:15:00Z")
    }

    /// Version 4 adds the SHA-256 of the tensor data; this one is frozen, with a threshold.
    func testVersion4() throws {
        let model = try load("model-format-4.wbmodel")
        XCTAssertEqual(model.labels, ["north", "south", "east"])
        XCTAssertEqual(model.temperature, 0.875)
        XCTAssertEqual(model.confidenceThreshold, 0.5)
        XCTAssertEqual(model.preprocessing, .efficientNetLite0)
        XCTAssertNil(model.fineTuning)
        XCTAssertEqual(model.head.featureMean, [2, 2.125, 2.25, 2.375])
        XCTAssertEqual(model.head.bias, [-2, -1.75, -1.5])
        assertBackbone(model, pretrainedBackbone)
        try assertCommonFields(model, created: "2026-11-30T09:00:00Z")
    }

    /// Version 5 adds the test-time augmentation record; this one was trained with --tta and --no-flip.
    func testVersion5() throws {
        let model = try load("model-format-5.wbmodel")
        XCTAssertEqual(model.labels, ["left", "right"])
        XCTAssertEqual(model.temperature, 1.125)
        XCTAssertNil(model.confidenceThreshold)
        XCTAssertNil(model.fineTuning)
        XCTAssertEqual(model.testTimeAugmentation, TestTimeAugmentationRecord(byDefault: true, mirrors: false))
        assertBackbone(model, pretrainedBackbone)
        try assertCommonFields(model, created: "2026-12-02T10:30:00Z")
    }

    /// Versions 1 to 4 stored no record: no views by default, mirrored unless the fine-tuning record lists
    /// augmentations without a flip (the version 3 fixture's list has the flip).
    func testVersion6() throws {
        let model = try load("model-format-6.wbmodel")
        XCTAssertEqual(model.labels, ["up", "down"])
        XCTAssertEqual(model.temperature, 1.375)
        XCTAssertEqual(model.testTimeAugmentation, TestTimeAugmentationRecord(byDefault: false, mirrors: true))
        assertBackbone(model, pretrainedBackbone)
        try assertCommonFields(model, created: "2026-12-04T11:00:00Z")
    }

    func testVersion6DetectorLoadsAsADetectorAndIsRefusedAsAClassifier() throws {
        let path = Self.fixtures.appendingPathComponent("model-format-6-detector.wbmodel").path
        let detector = try DetectorModelFile.read(path: path)
        XCTAssertEqual(detector.labels, ["cat", "dog"])
        XCTAssertEqual(detector.inputSide, 320)
        XCTAssertEqual(detector.scoreThreshold, 0.375)
        XCTAssertEqual(detector.creationDate, "2026-12-04T12:00:00Z")
        XCTAssertEqual(detector.backboneIdentifier.count, 64)
        XCTAssertEqual(detector.headTensors.keys.sorted(), DetectorModelFile.headTensorNames)
        XCTAssertEqual(detector.headTensors["mixing.weights"]?.shape, [3, 3, 2, 2])
        XCTAssertEqual(detector.headTensors["outputBias.bias"]?.values, [-0.125, 0.25, 0.625, 1.0, -0.75, -0.375])
        XCTAssertEqual(detector.backboneTensors.keys.sorted(), pretrainedBackbone.keys.sorted())
        XCTAssertTrue(DetectorModelFile.isDetector(path: path))
        XCTAssertThrowsError(try ModelFile.read(path: path)) { error in
            // The CLI words the hint: ": use it with workbench detect --model" (DetectorTrainingCommandTests).
            XCTAssertEqual("\(error)", path + ": is a detector model, not a classifier")
            XCTAssertEqual((error as? ModelFileError)?.hint, .useAsDetector)
        }
        // A classifier's file, old or new, is refused by the detector's reader.
        for name in ["model-format-6.wbmodel", "model-format-2.wbmodel"] {
            let classifier = Self.fixtures.appendingPathComponent(name).path
            XCTAssertFalse(DetectorModelFile.isDetector(path: classifier))
            XCTAssertThrowsError(try DetectorModelFile.read(path: classifier)) { error in
                XCTAssertEqual(
                    "\(error)", classifier + ": is a classifier model, not a detector: use it with workbench classify (or evaluate, label)")
            }
        }
        // Written again by the Swift writer: the same bytes as the generator's.
        let folder = try makeTemporaryFolder(self)
        try detector.write(path: folder + "/again.wbmodel")
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/again.wbmodel"), FileManager.default.contents(atPath: path))
    }

    func testVersion6DetectorWithABrokenHeadIsRefused() throws {
        let folder = try makeTemporaryFolder(self)
        let path = Self.fixtures.appendingPathComponent("model-format-6-detector.wbmodel").path
        let cases: [(String, (inout SafetensorsFile) -> Void)] = [
            ("missing head tensors: 'detector.mixingBias.bias'", { $0.tensors["detector.mixingBias.bias"] = nil }),
            (
                "tensor 'detector.output.weights' has shape [2, 5] but 2 labels and width 2 need [2, 6]",
                { $0.tensors["detector.output.weights"] = .init(shape: [2, 5], values: Array(repeating: 0, count: 10)) }
            ),
            ("corrupted header: no 'score_threshold' metadata", { $0.metadata["score_threshold"] = nil }),
            ("the score threshold 1.5 is not between 0 and 1", { $0.metadata["score_threshold"] = "1.5" }),
            (
                "kind 'segmenter' is not a model this build reads (classifier or detector): update Workbench",
                { $0.metadata["kind"] = "segmenter" }
            ),
        ]
        for (reason, breakIt) in cases {
            var file = try SafetensorsFile.read(path: path)
            breakIt(&file)
            file.metadata["tensor_data_sha256"] = ModelFile.tensorDataChecksum(file)
            let broken = folder + "/broken.wbmodel"
            try file.write(path: broken)
            XCTAssertThrowsError(try DetectorModelFile.read(path: broken)) { error in
                XCTAssertEqual("\(error)", broken + ": " + reason)
            }
        }
    }

    func testOlderVersionsImplyNoViewsByDefault() throws {
        for name in [
            "model-format-1.wbmodel", "model-format-2.wbmodel", "model-format-3-unversioned-preprocessing.wbmodel",
            "model-format-3.wbmodel", "model-format-4.wbmodel",
        ] {
            XCTAssertEqual(try load(name).testTimeAugmentation, TestTimeAugmentationRecord(byDefault: false, mirrors: true), name)
        }
        let unflipped = FineTuningRecord(
            firstTrainedBlock: 16, trainedTensorNames: ["_conv_head.weight"], epochs: 1,
            augmentations: ["rotation ±10°"])
        XCTAssertEqual(
            TestTimeAugmentationRecord.implied(byOlderFileWith: unflipped),
            TestTimeAugmentationRecord(byDefault: false, mirrors: false))
    }

    /// A version 5 file without its record, or with one that is not a record, is refused naming the field.
    func testVersion5WithoutItsRecordIsRefused() throws {
        let folder = try makeTemporaryFolder(self)
        let path = Self.fixtures.appendingPathComponent("model-format-5.wbmodel").path
        for (value, reason) in [
            (nil, "corrupted header: no 'test_time_augmentation' metadata"),
            ("{\"byDefault\":1}", "test_time_augmentation metadata is not a valid record (JSON object with byDefault, mirrors)"),
        ] {
            var file = try SafetensorsFile.read(path: path)
            file.metadata["test_time_augmentation"] = value
            file.metadata["tensor_data_sha256"] = ModelFile.tensorDataChecksum(file)
            let broken = folder + "/broken.wbmodel"
            try file.write(path: broken)
            XCTAssertThrowsError(try ModelFile.read(path: broken)) { error in
                XCTAssertEqual("\(error)", broken + ": " + reason)
            }
        }
    }

    /// A version 4 file whose tensor data changed after it was written is refused; so is one without the checksum.
    /// Versions 1-3 had none and load without it (above).
    func testVersion4WithDamagedTensorDataIsRefused() throws {
        let folder = try makeTemporaryFolder(self)
        let path = Self.fixtures.appendingPathComponent("model-format-4.wbmodel").path
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: path)).map { $0 }
        // The last byte belongs to head.weight's last value: a finite float stays finite with its low bit flipped.
        bytes[bytes.count - 1 - 12] ^= 0x01
        let damaged = folder + "/damaged.wbmodel"
        XCTAssertTrue(FileManager.default.createFile(atPath: damaged, contents: Data(bytes)))
        XCTAssertThrowsError(try ModelFile.read(path: damaged)) { error in
            XCTAssertEqual("\(error)", damaged + ": tensor data checksum does not match: the file is damaged")
        }
        var unsealed = try SafetensorsFile.read(path: path)
        unsealed.metadata["tensor_data_sha256"] = nil
        let missing = folder + "/unsealed.wbmodel"
        try unsealed.write(path: missing)
        XCTAssertThrowsError(try ModelFile.read(path: missing)) { error in
            XCTAssertEqual("\(error)", missing + ": corrupted header: no 'tensor_data_sha256' metadata")
        }
    }

    /// Today's writer gives the current version's stored file back byte for byte, and an older file saved again
    /// becomes the current version with the same meaning.
    func testSavingAgainWritesTheCurrentVersionWithTheSameContent() throws {
        let folder = try makeTemporaryFolder(self)
        let current = Self.fixtures.appendingPathComponent("model-format-\(ModelFile.formatVersion).wbmodel").path
        try ModelFile.read(path: current).write(path: folder + "/current.wbmodel")
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/current.wbmodel"), FileManager.default.contents(atPath: current))

        for name in [
            "model-format-1.wbmodel", "model-format-2.wbmodel", "model-format-3-unversioned-preprocessing.wbmodel",
            "model-format-3.wbmodel", "model-format-4.wbmodel", "model-format-5.wbmodel",
        ] {
            let old = try load(name)
            try old.write(path: folder + "/" + name)
            XCTAssertEqual(try ModelFile.read(path: folder + "/" + name), old, name)
            let rewritten = try SafetensorsFile.read(path: folder + "/" + name)
            XCTAssertEqual(rewritten.metadata["format_version"], String(ModelFile.formatVersion), name)
        }
    }
}

/// A tensor's expected shape and values, written compactly.
private struct ExpectedTensor {
    let shape: [Int]
    let values: [Float]
    init(_ shape: [Int], _ values: [Float]) {
        self.shape = shape
        self.values = values
    }
}
