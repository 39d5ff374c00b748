import Foundation
import SwiftProtobuf
import XCTest
@testable import Export

final class ONNXExportTests: XCTestCase {
    /// The exported graph passes onnx's checker and, run by onnxruntime on a batch of four images (with and
    /// without its graph optimisations), gives Workbench's probabilities within 1e-4 and the same top-1.
    func testONNXRuntimeMatchesWorkbench() throws {
        let network = try ExportFixtures.network()
        let model = try ExportFixtures.modelFile()
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("classifier.onnx").path
        try ONNXExporter.export(model: model, network: network, to: path)

        let images = try ExportFixtures.images()
        let result = try PythonChecker.check(
            script: "check-onnx-export.py", model: path,
            images: try ExportFixtures.writeImages(images, to: folder), folder: folder)
        XCTAssertEqual(result["labels"] as? [String], model.labels, "labels metadata, in output order")
        let preprocessing = try XCTUnwrap(result["preprocessing"] as? [String: Any])
        XCTAssertEqual(preprocessing["inputSide"] as? Int, 224)
        XCTAssertEqual(preprocessing["cropPadding"] as? Int, 32)
        XCTAssertEqual(preprocessing["mean"] as? [Double], [127, 127, 127])
        XCTAssertEqual(preprocessing["std"] as? [Double], [128, 128, 128])
        XCTAssertEqual(result["producer"] as? [String], ["Workbench", "4"])

        let expected = ExportFixtures.workbenchProbabilities(images, model: model, network: network)
        let exported = try PythonChecker.probabilities(result)
        let largest = ExportFixtures.compare(exported, expected, images: images, format: "ONNX")
        let unoptimized = try PythonChecker.probabilities(result, key: "probabilities_unoptimized")
        let largestUnoptimized = ExportFixtures.compare(unoptimized, expected, images: images, format: "ONNX (no graph optimisation)")
        print(
            "ONNX export: max |Δprobability| vs Workbench = \(largest) (onnxruntime defaults), "
                + "\(largestUnoptimized) (no graph optimisation) over \(images.count) images")
    }

    /// TensorFlow SAME on a 224-px input is asymmetric for stride 2 (the extra pixel goes after); the Conv
    /// nodes must carry exactly those pads, in ONNX's [top, left, bottom, right] order.
    func testConvolutionPadsAreTensorFlowSame() throws {
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("classifier.onnx").path
        try ONNXExporter.export(model: try ExportFixtures.modelFile(), network: try ExportFixtures.network(), to: path)
        let model = try Onnx_ModelProto(serializedBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))

        func pads(_ node: String) throws -> [Int64] {
            let conv = try XCTUnwrap(model.graph.node.first { $0.name == node }, "node \(node)")
            XCTAssertEqual(conv.opType, "Conv")
            return try XCTUnwrap(conv.attribute.first { $0.name == "pads" }).ints
        }
        XCTAssertEqual(try pads("stem"), [0, 0, 1, 1], "3×3 stride 2 on 224: total 1 → 0 before, 1 after")
        XCTAssertEqual(try pads("blocks.0.depthwise"), [1, 1, 1, 1], "3×3 stride 1")
        XCTAssertEqual(try pads("blocks.3.depthwise"), [1, 1, 2, 2], "5×5 stride 2 on 56: total 3 → 1 before, 2 after")
        XCTAssertEqual(try pads("blocks.1.expand"), [0, 0, 0, 0])
        let groups = try XCTUnwrap(model.graph.node.first { $0.name == "blocks.1.depthwise" }?.attribute.first { $0.name == "group" })
        XCTAssertEqual(groups.i, 96, "depthwise: one group per channel")
        XCTAssertEqual(model.graph.node.filter { $0.opType == "Add" }.count, 9, "one Add per residual block")
        XCTAssertEqual(model.graph.input.first?.type.tensorType.shape.dim.first?.dimParam, "N")
    }

    /// The graph divides the logits by the model's temperature right before the softmax, and says so in its
    /// metadata, with the confidence threshold.
    func testLogitsAreDividedByTheTemperature() throws {
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("classifier.onnx").path
        try ONNXExporter.export(model: try ExportFixtures.modelFile(), network: try ExportFixtures.network(), to: path)
        let model = try Onnx_ModelProto(serializedBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let division = try XCTUnwrap(model.graph.node.first { $0.name == "calibration" })
        XCTAssertEqual(division.opType, "Div")
        XCTAssertEqual(division.input, ["logits", "calibration.temperature"])
        let softmax = try XCTUnwrap(model.graph.node.first { $0.opType == "Softmax" })
        XCTAssertEqual(softmax.input, division.output)
        let temperature = try XCTUnwrap(model.graph.initializer.first { $0.name == "calibration.temperature" })
        let value = temperature.rawData.withUnsafeBytes { $0.load(as: Float.self) }
        XCTAssertEqual(value, Float(ExportFixtures.temperature))
        let metadata = Dictionary(uniqueKeysWithValues: model.metadataProps.map { ($0.key, $0.value) })
        XCTAssertEqual(metadata["temperature"], "1.7")
        XCTAssertEqual(metadata["confidence_threshold"], "0.65")
    }
}
