import FileFormats
import Foundation
import ModelFiles
import XCTest

/// The fine-tuning record (model format version 3) and the older layouts that have none.
final class FineTuningRecordTests: XCTestCase {
    private let record = FineTuningRecord(
        firstTrainedBlock: 13, trainedTensorNames: ["stem.conv.weight", "stem.bn.bias"], epochs: 10,
        augmentations: ["horizontal flip", "rotation ±10°"])

    func testRecordJSONRoundTripsWithSortedKeysAndNames() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(record), as: UTF8.self)
        XCTAssertEqual(
            text,
            #"{"augmentations":["horizontal flip","rotation ±10°"],"epochs":10,"firstTrainedBlock":13,"#
                + #""trainedTensorNames":["stem.bn.bias","stem.conv.weight"]}"#)
        XCTAssertEqual(try JSONDecoder().decode(FineTuningRecord.self, from: Data(text.utf8)), record)

        // The refits count sorts between firstTrainedBlock and trainedTensorNames, and a record without it (as
        // written before it was kept) reads as nil.
        var averaged = record
        averaged.refits = 3
        let averagedText = String(decoding: try encoder.encode(averaged), as: UTF8.self)
        XCTAssertTrue(averagedText.contains(#""firstTrainedBlock":13,"refits":3,"trainedTensorNames""#), averagedText)
        XCTAssertEqual(try JSONDecoder().decode(FineTuningRecord.self, from: Data(averagedText.utf8)), averaged)
        XCTAssertNil(try JSONDecoder().decode(FineTuningRecord.self, from: Data(text.utf8)).refits)
    }

    func testModelFileRoundTripKeepsTheRecord() throws {
        let folder = try makeTemporaryFolder(self)
        var model = sampleModel()
        model.fineTuning = record
        try model.write(path: folder + "/tuned.wbmodel")
        let loaded = try ModelFile.read(path: folder + "/tuned.wbmodel", expectedBackboneShapes: sampleBackboneShapes)
        XCTAssertEqual(loaded.fineTuning, record)
        XCTAssertEqual(loaded, model)
        let container = try SafetensorsFile.read(path: folder + "/tuned.wbmodel")
        XCTAssertEqual(container.metadata["format_version"], "6")
        XCTAssertNotNil(container.metadata["fine_tuning"])

        try sampleModel().write(path: folder + "/frozen.wbmodel")
        XCTAssertNil(try ModelFile.read(path: folder + "/frozen.wbmodel").fineTuning)
        XCTAssertNil(
            try SafetensorsFile.read(path: folder + "/frozen.wbmodel").metadata["fine_tuning"],
            "a frozen model stores no record")
    }

    func testInvalidRecordsAreRefusedOnWriteAndRead() throws {
        let folder = try makeTemporaryFolder(self)
        let cases: [(FineTuningRecord, String)] = [
            (
                FineTuningRecord(firstTrainedBlock: 13, trainedTensorNames: ["_blocks.15._bn0.weight"], epochs: 2, augmentations: []),
                "fine_tuning: trained tensor '_blocks.15._bn0.weight' is not a backbone tensor of this model"
            ),
            (
                FineTuningRecord(firstTrainedBlock: 13, trainedTensorNames: ["stem.bn.bias"], epochs: 0, augmentations: []),
                "fine_tuning: epochs 0 is not a positive number"
            ),
            (
                FineTuningRecord(firstTrainedBlock: -1, trainedTensorNames: ["stem.bn.bias"], epochs: 1, augmentations: []),
                "fine_tuning: firstTrainedBlock -1 is negative"
            ),
            (
                FineTuningRecord(firstTrainedBlock: 1, trainedTensorNames: [], epochs: 1, augmentations: []),
                "fine_tuning: trainedTensorNames is empty"
            ),
            (
                FineTuningRecord(firstTrainedBlock: 13, trainedTensorNames: ["stem.bn.bias"], epochs: 1, augmentations: [], refits: 0),
                "fine_tuning: refits 0 is not a positive number"
            ),
        ]
        for (bad, message) in cases {
            var model = sampleModel()
            model.fineTuning = bad
            XCTAssertThrowsError(try model.write(path: folder + "/bad.wbmodel")) { error in
                XCTAssertEqual("\(error)", "\(folder)/bad.wbmodel: cannot write: \(message)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/bad.wbmodel"))

        var model = sampleModel()
        model.fineTuning = record
        try model.write(path: folder + "/m.wbmodel")
        for (text, message) in [
            (
                "{\"epochs\":3}",
                "fine_tuning metadata is not a valid record (JSON object with firstTrainedBlock, trainedTensorNames, epochs, augmentations)"
            ),
            (
                #"{"augmentations":[],"epochs":3,"firstTrainedBlock":2,"trainedTensorNames":["missing"]}"#,
                "fine_tuning: trained tensor 'missing' is not a backbone tensor of this model"
            ),
        ] {
            var container = try SafetensorsFile.read(path: folder + "/m.wbmodel")
            container.metadata["fine_tuning"] = text
            try container.write(path: folder + "/edited.wbmodel")
            XCTAssertThrowsError(try ModelFile.read(path: folder + "/edited.wbmodel")) { error in
                XCTAssertEqual("\(error)", "\(folder)/edited.wbmodel: \(message)")
            }
        }
    }

    func testSummaryNamesTheTrainedBlocks() {
        XCTAssertEqual(
            record.summary(blockCount: 16),
            "blocks 13–15 and the final 1×1 convolution, 10 epochs, augmentations: horizontal flip, rotation ±10°")
        let last = FineTuningRecord(firstTrainedBlock: 15, trainedTensorNames: ["a"], epochs: 1, augmentations: [])
        XCTAssertEqual(last.summary(blockCount: 16), "block 15 and the final 1×1 convolution, 1 epoch, no augmentation")
        let headOnly = FineTuningRecord(firstTrainedBlock: 16, trainedTensorNames: ["a"], epochs: 2, augmentations: [])
        XCTAssertEqual(headOnly.summary(blockCount: 16), "the final 1×1 convolution, 2 epochs, no augmentation")
        let soup = FineTuningRecord(firstTrainedBlock: 16, trainedTensorNames: ["a"], epochs: 2, augmentations: [], refits: 3)
        XCTAssertEqual(soup.summary(blockCount: 16), "the final 1×1 convolution, 2 epochs (the average of 3 refits), no augmentation")
        let single = FineTuningRecord(firstTrainedBlock: 16, trainedTensorNames: ["a"], epochs: 2, augmentations: [], refits: 1)
        XCTAssertEqual(single.summary(blockCount: 16), "the final 1×1 convolution, 2 epochs, no augmentation")
    }

    /// A version-2 file, laid out by hand as Workbench 2 wrote it (not by the current writer), loads with no record.
    func testVersionTwoFileWrittenInTheOldLayoutLoads() throws {
        let folder = try makeTemporaryFolder(self)
        let path = folder + "/v2.wbmodel"
        try oldLayoutContainer(version: 2).write(path: path)
        let loaded = try ModelFile.read(path: path, expectedBackboneShapes: ["stem.conv.weight": [2, 3, 1, 1]])
        XCTAssertNil(loaded.fineTuning)
        XCTAssertEqual(loaded.labels, ["cat", "dog"])
        XCTAssertEqual(loaded.temperature, 1.5)
        XCTAssertEqual(loaded.confidenceThreshold, 0.25)
        XCTAssertEqual(loaded.head.bias, [0.5, -0.5])
        XCTAssertEqual(loaded.preprocessing, .efficientNetLite0)
    }

    /// Version 1 had neither temperature nor threshold.
    func testVersionOneFileWrittenInTheOldLayoutLoads() throws {
        let folder = try makeTemporaryFolder(self)
        let path = folder + "/v1.wbmodel"
        try oldLayoutContainer(version: 1).write(path: path)
        let loaded = try ModelFile.read(path: path)
        XCTAssertNil(loaded.fineTuning)
        XCTAssertEqual(loaded.temperature, 1)
        XCTAssertNil(loaded.confidenceThreshold)
        XCTAssertEqual(loaded.preprocessing, .efficientNetLite0)
    }
}

/// A model file exactly as format versions 1 and 2 laid it out, metadata spelled out literally: labels cat, dog;
/// feature dimension 2; the old preprocessing JSON (no version, no alpha background).
func oldLayoutContainer(version: Int) -> SafetensorsFile {
    var metadata = [
        "format": "workbench-model",
        "format_version": String(version),
        "labels": #"["cat","dog"]"#,
        "preprocessing": #"{"channelOrder":"RGB","cropPadding":32,"inputSide":224,"mean":[127,127,127],"#
            + #""name":"tf_crop_pad32","resample":"bicubic-antialiased","std":[128,128,128]}"#,
        "backbone": "efficientnet-lite0",
        "created": "2025-06-01T00:00:00Z",
        "workbench_version": "0.2.0",
        "training_report": #"{"accuracy":1}"#,
    ]
    if version >= 2 {
        metadata["temperature"] = "1.5"
        metadata["confidence_threshold"] = "0.25"
    }
    return SafetensorsFile(
        tensors: [
            "backbone.stem.conv.weight": .init(shape: [2, 3, 1, 1], values: [1, 2, 3, 4, 5, 6]),
            "head.feature_mean": .init(shape: [2], values: [0, 0]),
            "head.feature_scale": .init(shape: [2], values: [1, 1]),
            "head.weight": .init(shape: [2, 2], values: [1, 0, 0, 1]),
            "head.bias": .init(shape: [2], values: [0.5, -0.5]),
        ], metadata: metadata)
}
