import FileFormats
import Foundation
import ModelFiles
import XCTest

final class ModelFileTests: XCTestCase {
    func testRoundTripKeepsEveryField() throws {
        let folder = try makeTemporaryFolder(self)
        let model = sampleModel()
        try model.write(path: folder + "/m.wbmodel")
        let loaded = try ModelFile.read(path: folder + "/m.wbmodel", expectedBackboneShapes: sampleBackboneShapes)
        XCTAssertEqual(loaded, model)
        XCTAssertEqual(loaded.labels, ["cat", "dog", "bird"], "label order is output order")
    }

    /// A version-1 file (before calibration) has no temperature: it loads with temperature 1 and no threshold, so
    /// its probabilities stay what they were.
    func testVersionOneFilesLoadUncalibrated() throws {
        let folder = try makeTemporaryFolder(self)
        try sampleModel().write(path: folder + "/m.wbmodel")
        var container = try SafetensorsFile.read(path: folder + "/m.wbmodel")
        container.metadata["format_version"] = "1"
        container.metadata["temperature"] = nil
        container.metadata["confidence_threshold"] = nil
        try container.write(path: folder + "/v1.wbmodel")
        let loaded = try ModelFile.read(path: folder + "/v1.wbmodel")
        XCTAssertEqual(loaded.temperature, 1)
        XCTAssertNil(loaded.confidenceThreshold)
        XCTAssertEqual(loaded.head, sampleModel().head)
    }

    func testCalibrationValuesAreCheckedOnWriteAndRead() throws {
        let folder = try makeTemporaryFolder(self)
        var model = sampleModel()
        model.temperature = 0
        XCTAssertThrowsError(try model.write(path: folder + "/bad.wbmodel")) { error in
            XCTAssertTrue("\(error)".contains("temperature"), "\(error)")
        }
        model = sampleModel()
        model.confidenceThreshold = 1.5
        XCTAssertThrowsError(try model.write(path: folder + "/bad.wbmodel"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/bad.wbmodel"))

        try sampleModel().write(path: folder + "/m.wbmodel")
        for (key, value, fragment) in [
            ("temperature", "warm", "temperature metadata 'warm' is not a number"),
            ("temperature", "-2", "the temperature -2.0 is not a positive number"),
            ("confidence_threshold", "2", "the confidence threshold 2.0 is not between 0 and 1"),
        ] {
            var container = try SafetensorsFile.read(path: folder + "/m.wbmodel")
            container.metadata[key] = value
            try container.write(path: folder + "/edited.wbmodel")
            XCTAssertThrowsError(try ModelFile.read(path: folder + "/edited.wbmodel")) { error in
                XCTAssertTrue("\(error)".hasSuffix(fragment), "\(error)")
            }
        }
        var missing = try SafetensorsFile.read(path: folder + "/m.wbmodel")
        missing.metadata["temperature"] = nil
        try missing.write(path: folder + "/missing.wbmodel")
        XCTAssertThrowsError(try ModelFile.read(path: folder + "/missing.wbmodel")) { error in
            XCTAssertTrue("\(error)".hasSuffix("corrupted header: no 'temperature' metadata"), "\(error)")
        }
    }

    func testStoredNamesAndMetadataFollowTheFormat() throws {
        let folder = try makeTemporaryFolder(self)
        try sampleModel().write(path: folder + "/m.wbmodel")
        let container = try SafetensorsFile.read(path: folder + "/m.wbmodel")
        XCTAssertEqual(
            Set(container.tensors.keys),
            [
                "backbone.stem.conv.weight", "backbone.stem.bn.bias",
                "head.feature_mean", "head.feature_scale", "head.weight", "head.bias",
            ])
        XCTAssertEqual(container.tensors["head.weight"]?.shape, [3, 4])
        XCTAssertEqual(container.metadata["format"], "workbench-model")
        XCTAssertEqual(container.metadata["format_version"], "6")
        XCTAssertEqual(container.metadata["kind"], "classifier")
        XCTAssertEqual(container.metadata["temperature"], "1.25")
        XCTAssertEqual(container.metadata["confidence_threshold"], "0.7")
        XCTAssertEqual(container.metadata["labels"], #"["cat","dog","bird"]"#)
        XCTAssertEqual(container.metadata["backbone"], "efficientnet-lite0")
        XCTAssertEqual(container.metadata["created"], "2025-01-02T03:04:05Z")
        XCTAssertEqual(container.metadata["workbench_version"], "0.1.0")
        XCTAssertEqual(container.metadata["training_report"], #"{"accuracy":0.5,"epochs":3}"#)
        let preprocessing = try XCTUnwrap(container.metadata["preprocessing"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(preprocessing.utf8)) as? [String: Any])
        XCTAssertEqual(object["name"] as? String, "tf_crop_pad32")
        XCTAssertEqual(object["inputSide"] as? Int, 224)
        XCTAssertEqual(object["cropPadding"] as? Int, 32)
        XCTAssertEqual(object["resample"] as? String, "bicubic-antialiased")
        XCTAssertEqual(object["mean"] as? [Double], [127, 127, 127])
        XCTAssertEqual(object["std"] as? [Double], [128, 128, 128])
        XCTAssertEqual(object["channelOrder"] as? String, "RGB")
        XCTAssertEqual(object["version"] as? Int, 1)
        XCTAssertEqual(object["alphaBackground"] as? [Int], [255, 255, 255])
        XCTAssertEqual(object.count, 9, "exactly the value's fields: \(object.keys.sorted())")
    }

    func testEqualContentGivesIdenticalBytes() throws {
        let folder = try makeTemporaryFolder(self)
        try sampleModel().write(path: folder + "/a.wbmodel")
        // Build the same content again, inserting dictionary entries in another order.
        var again = sampleModel()
        again.backboneTensors = [:]
        for name in sampleModel().backboneTensors.keys.sorted().reversed() {
            again.backboneTensors[name] = sampleModel().backboneTensors[name]
        }
        try again.write(path: folder + "/b.wbmodel")
        let first = try XCTUnwrap(FileManager.default.contents(atPath: folder + "/a.wbmodel"))
        let second = try XCTUnwrap(FileManager.default.contents(atPath: folder + "/b.wbmodel"))
        XCTAssertEqual(first, second)

        var later = sampleModel()
        later.creationDate = "2025-01-02T03:04:06Z"
        try later.write(path: folder + "/c.wbmodel")
        XCTAssertNotEqual(FileManager.default.contents(atPath: folder + "/c.wbmodel"), first, "the date is part of the content")
    }

    func testWritingIntoAMissingFolderFailsAndLeavesNothing() throws {
        let folder = try makeTemporaryFolder(self)
        let path = folder + "/missing/m.wbmodel"
        XCTAssertThrowsError(try sampleModel().write(path: path)) { error in
            XCTAssertTrue("\(error)".hasPrefix(path + ": cannot write"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/missing"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
    }

    func testExistingFileSurvivesAFailedWrite() throws {
        let folder = try makeTemporaryFolder(self)
        let path = folder + "/m.wbmodel"
        try sampleModel().write(path: path)
        let before = FileManager.default.contents(atPath: path)
        var broken = sampleModel()
        broken.labels = ["cat", "cat", "bird"]
        XCTAssertThrowsError(try broken.write(path: path)) { error in
            XCTAssertEqual("\(error)", "\(path): cannot write: labels: 'cat' appears more than once")
        }
        // A failure at rename time: the destination is replaced by a non-empty folder, so rename(2) must fail.
        let blocked = folder + "/blocked.wbmodel"
        try FileManager.default.createDirectory(atPath: blocked + "/inside", withIntermediateDirectories: true)
        XCTAssertThrowsError(try sampleModel().write(path: blocked))
        XCTAssertEqual(FileManager.default.contents(atPath: path), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["blocked.wbmodel", "m.wbmodel"],
            "no temporary file may remain")
    }

    func testWriteRefusesInconsistentHeadAndBadReport() throws {
        let folder = try makeTemporaryFolder(self)
        var model = sampleModel()
        model.head.bias = [0, 0]
        XCTAssertThrowsError(try model.write(path: folder + "/m.wbmodel")) { error in
            XCTAssertTrue("\(error)".contains("'head.bias'"), "\(error)")
        }
        model = sampleModel()
        model.trainingReportJSON = "{not json"
        XCTAssertThrowsError(try model.write(path: folder + "/m.wbmodel")) { error in
            XCTAssertTrue("\(error)".contains("training report is not valid JSON"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
    }
}
