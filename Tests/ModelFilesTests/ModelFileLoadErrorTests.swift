import FileFormats
import Foundation
import ImageCodecs
import ModelFiles
import XCTest

/// Every way loading can fail, each with its one reason. Broken files are built in a temporary folder.
final class ModelFileLoadErrorTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = try makeTemporaryFolder(self)
    }

    /// Writes `bytes`, loads them, and returns the error message (failing the test if loading succeeds).
    private func loadError(
        _ bytes: [UInt8], expected: [String: [Int]]? = nil, file: StaticString = #filePath, line: UInt = #line
    ) -> String {
        let path = folder + "/broken-\(UUID().uuidString).wbmodel"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)), file: file, line: line)
        do {
            _ = try ModelFile.read(path: path, expectedBackboneShapes: expected)
            XCTFail("loading should have failed", file: file, line: line)
            return ""
        } catch {
            XCTAssertEqual(error.path, path, file: file, line: line)
            XCTAssertEqual(error.description, "\(path): \(error.reason)", file: file, line: line)
            XCTAssertFalse(error.description.contains("\n"), "one line", file: file, line: line)
            return error.reason
        }
    }

    /// The sample model's container with `change` applied, its tensor data checksum recomputed (unless `change`
    /// set one), so each test reaches the check it is about.
    private func container(_ change: (inout SafetensorsFile) -> Void = { _ in }) -> [UInt8] {
        let path = folder + "/valid.wbmodel"
        try! sampleModel().write(path: path)
        var file = try! SafetensorsFile.read(path: path)
        let written = file.metadata["tensor_data_sha256"]
        change(&file)
        if file.metadata["tensor_data_sha256"] == written && written != nil {
            file.metadata["tensor_data_sha256"] = ModelFile.tensorDataChecksum(file)
        }
        return file.serialized()
    }

    private func validBytes() -> [UInt8] { container() }

    func testMissingFile() {
        XCTAssertThrowsError(try ModelFile.read(path: folder + "/nothing.wbmodel")) { error in
            XCTAssertEqual("\(error)", folder + "/nothing.wbmodel: no such file")
        }
        XCTAssertThrowsError(try ModelFile.read(path: folder)) { error in
            XCTAssertEqual("\(error)", folder + ": is a folder, not a model file")
        }
    }

    /// Issue 45, item 9: the checksum covers the data, not the header, so two tensors of one size with their
    /// offsets swapped passed it and loaded each other's weights. The tensors as placed must be the data written.
    func testTwoTensorsWithTheirOffsetsSwappedAreRefused() throws {
        var bytes = validBytes()
        let headerLength = (0..<8).reduce(0) { $0 | Int(bytes[$1]) << (8 * $1) }
        var header = String(decoding: bytes[8..<(8 + headerLength)], as: UTF8.self)
        func offsets(of name: String) throws -> Range<String.Index> {
            let entry = try XCTUnwrap(header.range(of: "\"\(name)\":"), name)
            let key = try XCTUnwrap(header.range(of: "\"data_offsets\":", range: entry.upperBound..<header.endIndex))
            let close = try XCTUnwrap(header.range(of: "]", range: key.upperBound..<header.endIndex))
            return key.upperBound..<close.upperBound
        }
        let mean = try offsets(of: "head.feature_mean"), scale = try offsets(of: "head.feature_scale")
        let (meanText, scaleText) = (String(header[mean]), String(header[scale]))
        XCTAssertNotEqual(meanText, scaleText)
        XCTAssertEqual(meanText.count, scaleText.count, "the swap keeps the header's length")
        // The later range first, so the earlier one's indices stay valid.
        for (range, text) in [(mean, scaleText), (scale, meanText)].sorted(by: { $0.0.lowerBound > $1.0.lowerBound }) {
            header.replaceSubrange(range, with: text)
        }
        bytes.replaceSubrange(8..<(8 + headerLength), with: Array(header.utf8))
        XCTAssertEqual(
            loadError(bytes),
            "corrupted header: its tensors' offsets do not place them where they were written (the data matches its checksum, the tensors do not)")
        // The file as written still loads.
        let path = folder + "/intact.wbmodel"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(validBytes())))
        XCTAssertEqual(try ModelFile.read(path: path).head, sampleModel().head)
    }

    func testTruncatedInsideTheHeader() {
        let reason = loadError(Array(validBytes().prefix(40)))
        XCTAssertTrue(reason.hasPrefix("truncated: the header needs "), reason)
    }

    func testTruncatedInsideTheData() {
        let reason = loadError(Array(validBytes().dropLast(5)))
        XCTAssertTrue(reason.hasPrefix("truncated: tensor '"), reason)
        XCTAssertTrue(reason.contains("ends at data byte"), reason)
    }

    func testTooShort() {
        XCTAssertEqual(loadError([1, 2, 3]), "too short to be a model file (3 bytes): truncated or not a Workbench model")
    }

    func testCorruptedHeader() {
        var bytes = validBytes()
        bytes[20] = 0xFF
        XCTAssertEqual(loadError(bytes), "corrupted header: not a valid JSON object")
    }

    func testForeignSafetensorsFile() {
        let foreign = SafetensorsFile(tensors: ["weight": .init(shape: [2], values: [1, 2])], metadata: ["format": "pt"])
        XCTAssertEqual(loadError(foreign.serialized()), "not a Workbench model (format is 'pt', expected 'workbench-model')")
        let bare = SafetensorsFile(tensors: ["weight": .init(shape: [2], values: [1, 2])])
        XCTAssertEqual(loadError(bare.serialized()), "not a Workbench model (no 'format' metadata)")
    }

    func testNonSafetensorsFile() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        XCTAssertEqual(loadError(png), "not a Workbench model (not a safetensors file)")
        XCTAssertEqual(loadError(Array("just some text that is long enough".utf8)), "not a Workbench model (not a safetensors file)")
    }

    func testNewerFormatVersion() {
        let bytes = container { $0.metadata["format_version"] = "7" }
        XCTAssertEqual(
            loadError(bytes),
            "written by a newer Workbench (model format version 7; this build reads up to version 6): update Workbench")
        XCTAssertEqual(
            loadError(container { $0.metadata["format_version"] = "one" }),
            "corrupted header: format_version 'one' is not a positive integer")
    }

    func testMissingMetadata() {
        XCTAssertEqual(loadError(container { $0.metadata["labels"] = nil }), "corrupted header: no 'labels' metadata")
        XCTAssertEqual(loadError(container { $0.metadata["training_report"] = nil }), "corrupted header: no 'training_report' metadata")
    }

    func testLabelsMustBeUniqueNonEmptyStrings() {
        XCTAssertEqual(
            loadError(container { $0.metadata["labels"] = "cat, dog, bird" }),
            "labels metadata is not a JSON array of strings")
        XCTAssertEqual(
            loadError(container { $0.metadata["labels"] = "[1, 2, 3]" }),
            "labels metadata is not a JSON array of strings")
        XCTAssertEqual(
            loadError(container { $0.metadata["labels"] = #"{"a": "b"}"# }),
            "labels metadata is not a JSON array of strings")
        XCTAssertEqual(
            loadError(container { $0.metadata["labels"] = #"["cat", "dog", "cat"]"# }),
            "labels: 'cat' appears more than once")
        XCTAssertEqual(
            loadError(container { $0.metadata["labels"] = #"["cat", "", "bird"]"# }),
            "labels: a label is the empty string")
        XCTAssertEqual(loadError(container { $0.metadata["labels"] = "[]" }), "labels: the list is empty")
    }

    func testHeadShapesMustMatchLabelsAndDimension() {
        // Two labels while the head has three outputs.
        XCTAssertEqual(
            loadError(container { $0.metadata["labels"] = #"["cat", "dog"]"# }),
            "tensor 'head.weight' has shape [3, 4] but 2 labels and feature dimension 4 need [2, 4]")
        XCTAssertEqual(
            loadError(container { $0.tensors["head.feature_scale"] = .init(shape: [5], values: [1, 1, 1, 1, 1]) }),
            "tensor 'head.feature_scale' has shape [5] but 3 labels and feature dimension 4 need [4]")
        XCTAssertEqual(
            loadError(container { $0.tensors["head.bias"] = .init(shape: [1, 3], values: [0, 0, 0]) }),
            "tensor 'head.bias' has shape [1, 3] but 3 labels and feature dimension 4 need [3]")
        XCTAssertEqual(
            loadError(container { $0.tensors["head.feature_mean"] = .init(shape: [2, 2], values: [0, 0, 0, 0]) }),
            "tensor 'head.feature_mean' has shape [2, 2], expected one non-empty dimension [D]")
    }

    func testMissingHeadTensor() {
        XCTAssertEqual(loadError(container { $0.tensors["head.bias"] = nil }), "missing head tensor 'head.bias'")
    }

    func testUnexpectedTensorNames() {
        let bytes = container {
            $0.tensors["classifier.weight"] = .init(shape: [1], values: [0])
            $0.tensors["head.extra"] = .init(shape: [1], values: [0])
        }
        XCTAssertEqual(
            loadError(bytes),
            "unexpected tensors (neither 'backbone.*' nor a head tensor): 'classifier.weight', 'head.extra'")
    }

    func testBackboneMustMatchTheExpectedShapes() {
        let bytes = validBytes()
        var expected = sampleBackboneShapes
        expected["stem.bn.weight"] = [2]
        XCTAssertEqual(loadError(bytes, expected: expected), "missing backbone tensors: 'stem.bn.weight'")

        expected = sampleBackboneShapes
        expected["stem.bn.bias"] = nil
        XCTAssertEqual(loadError(bytes, expected: expected), "unused backbone tensors: 'stem.bn.bias'")

        expected = sampleBackboneShapes
        expected["stem.conv.weight"] = [2, 1, 3, 1]
        XCTAssertEqual(
            loadError(bytes, expected: expected),
            "backbone tensors with the wrong shape: 'stem.conv.weight' is [2, 3, 1, 1], expected [2, 1, 3, 1]")
    }

    func testMalformedPreprocessingAndReport() {
        XCTAssertTrue(
            loadError(container { $0.metadata["preprocessing"] = #"{"name":"x"}"# })
                .hasPrefix("preprocessing metadata is not a valid description"))
        XCTAssertEqual(loadError(container { $0.metadata["training_report"] = "{oops" }), "the training report is not valid JSON")
    }

    /// A version-3 description that this build cannot perform is refused naming the field, not silently run with
    /// other numbers.
    func testPreprocessingThisBuildCannotPerformIsRefusedNamingTheField() throws {
        let valid = ImagePreprocessing.efficientNetLite0.canonicalJSON
        let cases: [(String, String, String)] = [
            (#""version":1"#, #""version":2"#, "preprocessing 'version' is 2; this build reads preprocessing version 1"),
            (
                #""name":"tf_crop_pad32""#, #""name":"inception_crop""#,
                "preprocessing 'name' is 'inception_crop'; this build performs only 'tf_crop_pad32'"
            ),
            (
                #""resample":"bicubic-antialiased""#, #""resample":"nearest""#,
                "preprocessing 'resample' is 'nearest'; this build performs only 'bicubic-antialiased'"
            ),
            (#""channelOrder":"RGB""#, #""channelOrder":"BGR""#, "preprocessing 'channelOrder' is 'BGR'; this build performs only 'RGB'"),
            (
                #""alphaBackground":[255,255,255]"#, #""alphaBackground":[0,0,0]"#,
                "preprocessing 'alphaBackground' is [0, 0, 0]; this build composites only onto [255, 255, 255]"
            ),
            (#""std":[128,128,128]"#, #""std":[128,0,128]"#, "preprocessing 'std' is [128.0, 0.0, 128.0], not 3 finite non-zero numbers"),
        ]
        for (field, replacement, message) in cases {
            XCTAssertTrue(valid.contains(field), "\(field) in \(valid)")
            let edited = valid.replacingOccurrences(of: field, with: replacement)
            XCTAssertEqual(loadError(container { $0.metadata["preprocessing"] = edited }), message)
        }
        let withoutVersion = valid.replacingOccurrences(of: #","version":1"#, with: "")
        XCTAssertEqual(
            loadError(container { $0.metadata["preprocessing"] = withoutVersion }),
            "preprocessing metadata is not a valid description (JSON object with version, name, inputSide, "
                + "cropPadding, resample, mean, std, channelOrder, alphaBackground): 'version' is missing")
    }
}
