import FileFormats
import Foundation
import Models
import XCTest

/// The strict loader: every missing, unused and wrong-shape tensor is named in the error.
final class BackboneWeightsTests: XCTestCase {
    /// A complete file of the right names and shapes, all values zero except unit variances.
    func completeFile() -> SafetensorsFile {
        var file = SafetensorsFile()
        for (name, shape) in BackboneWeights.expectedShapes {
            let fill: Float = name.hasSuffix("running_var") ? 1 : 0
            file.tensors[name] = .init(shape: shape, values: [Float](repeating: fill, count: shape.reduce(1, *)))
        }
        return file
    }

    func testExpectedTensorsMatchThePyTorchStateDict() {
        // 296 state-dict tensors minus the 49 `num_batches_tracked` counters the converter drops.
        XCTAssertEqual(BackboneWeights.expectedShapes.count, 247)
        XCTAssertEqual(BackboneWeights.expectedShapes["_conv_stem.weight"], [32, 3, 3, 3])
        XCTAssertEqual(BackboneWeights.expectedShapes["_blocks.0._depthwise_conv.weight"], [32, 1, 3, 3])
        XCTAssertNil(BackboneWeights.expectedShapes["_blocks.0._expand_conv.weight"])
        XCTAssertEqual(BackboneWeights.expectedShapes["_blocks.15._project_conv.weight"], [320, 1152, 1, 1])
        XCTAssertEqual(BackboneWeights.expectedShapes["_blocks.3._depthwise_conv.weight"], [144, 1, 5, 5])
        XCTAssertEqual(BackboneWeights.expectedShapes["_conv_head.weight"], [1280, 320, 1, 1])
        XCTAssertEqual(BackboneWeights.expectedShapes["_fc.weight"], [1000, 1280])
    }

    func testCompleteFileLoads() throws {
        let network = try EfficientNetLite0(weights: completeFile(), path: "complete.safetensors")
        XCTAssertEqual(network.blocks.count, 16)
        XCTAssertNil(network.blocks[0].expand)
        XCTAssertEqual(network.blocks[15].project.outputChannels, 320)
    }

    func testMissingTensorIsNamed() {
        var file = completeFile()
        file.tensors["_blocks.7._bn1.running_mean"] = nil
        assertLoadFails(file, mentions: ["missing tensors: _blocks.7._bn1.running_mean"])
    }

    func testUnusedTensorIsNamed() {
        var file = completeFile()
        file.tensors["_blocks.0._bn0.num_batches_tracked"] = .init(shape: [1], values: [0])
        assertLoadFails(file, mentions: ["unused tensors: _blocks.0._bn0.num_batches_tracked"])
    }

    func testWrongShapeIsNamed() {
        var file = completeFile()
        file.tensors["_blocks.3._depthwise_conv.weight"] = .init(shape: [144, 1, 3, 3], values: [Float](repeating: 0, count: 144 * 9))
        assertLoadFails(file, mentions: ["wrong shapes: _blocks.3._depthwise_conv.weight is [144, 1, 3, 3], expected [144, 1, 5, 5]"])
    }

    func testAllThreeProblemsAreReportedTogether() {
        var file = completeFile()
        file.tensors["_fc.bias"] = nil
        file.tensors["extra"] = .init(shape: [2], values: [1, 2])
        file.tensors["_bn0.weight"] = .init(shape: [31], values: [Float](repeating: 1, count: 31))
        assertLoadFails(file, mentions: ["missing tensors: _fc.bias", "unused tensors: extra", "_bn0.weight is [31], expected [32]"])
    }

    func testErrorsFromFilesNameThePath() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("BackboneWeightsTests-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var file = completeFile()
        file.tensors["_conv_head.weight"] = nil
        let path = folder.appendingPathComponent("broken.safetensors").path
        try file.write(path: path)
        XCTAssertThrowsError(try EfficientNetLite0(weightsPath: path)) { error in
            XCTAssertEqual("\(error)", "\(path): not EfficientNet-Lite0 weights: missing tensors: _conv_head.weight")
        }
        let absent = folder.appendingPathComponent("absent.safetensors").path
        XCTAssertThrowsError(try EfficientNetLite0(weightsPath: absent)) { error in
            XCTAssertEqual("\(error)", "\(absent): no such file")
        }
    }

    private func assertLoadFails(_ file: SafetensorsFile, mentions fragments: [String], line: UInt = #line) {
        XCTAssertThrowsError(try EfficientNetLite0(weights: file, path: "weights.safetensors"), line: line) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("weights.safetensors: "), text, line: line)
            for fragment in fragments { XCTAssertTrue(text.contains(fragment), "'\(text)' should mention '\(fragment)'", line: line) }
        }
    }
}
