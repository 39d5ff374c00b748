import Foundation
import XCTest
import Export

final class ExportDeterminismTests: XCTestCase {
    /// Exporting twice gives the same bytes, and rebuilding the backbone from the model file's own tensors
    /// gives the same file as passing the already-built network.
    func testExportsAreDeterministicAndUseTheModelsBackbone() throws {
        let network = try ExportFixtures.network(), model = try ExportFixtures.modelFile()
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func bytes(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }
        let path = { (name: String) in folder.appendingPathComponent(name).path }

        try ONNXExporter.export(model: model, network: network, to: path("a.onnx"))
        try ONNXExporter.export(model: model, network: network, to: path("b.onnx"))
        try ONNXExporter.export(model: model, to: path("c.onnx"))
        XCTAssertEqual(try bytes("a.onnx"), try bytes("b.onnx"))
        XCTAssertEqual(try bytes("a.onnx"), try bytes("c.onnx"))

        try CoreMLExporter.export(model: model, network: network, to: path("a.mlmodel"))
        try CoreMLExporter.export(model: model, network: network, to: path("b.mlmodel"))
        try CoreMLExporter.export(model: model, to: path("c.mlmodel"))
        XCTAssertEqual(try bytes("a.mlmodel"), try bytes("b.mlmodel"))
        XCTAssertEqual(try bytes("a.mlmodel"), try bytes("c.mlmodel"))
    }

    func testModelWithBrokenBackboneIsRefused() throws {
        var model = try ExportFixtures.modelFile()
        model.backboneTensors.removeValue(forKey: "_conv_head.weight")
        let path = "/tmp/never-written-\(UUID().uuidString).onnx"
        XCTAssertThrowsError(try ONNXExporter.export(model: model, to: path)) { error in
            let error = error as? ExportError
            XCTAssertEqual(error?.path, path)
            XCTAssertTrue(error?.reason.contains("_conv_head.weight") ?? false, "\(String(describing: error))")
        }
        model = try ExportFixtures.modelFile()
        model.backboneName = "mobilenet-v9"
        XCTAssertThrowsError(try CoreMLExporter.export(model: model, to: path)) { error in
            XCTAssertTrue((error as? ExportError)?.reason.contains("mobilenet-v9") ?? false, "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }
}
