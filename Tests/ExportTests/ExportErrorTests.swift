import Foundation
import XCTest
import Export

final class ExportErrorTests: XCTestCase {
    private typealias Exporter = (String) throws(ExportError) -> Void

    private func exporters() throws -> [(String, Exporter)] {
        let network = try ExportFixtures.network(), model = try ExportFixtures.modelFile()
        return [
            ("onnx", { path throws(ExportError) in try ONNXExporter.export(model: model, network: network, to: path) }),
            ("mlmodel", { path throws(ExportError) in try CoreMLExporter.export(model: model, network: network, to: path) }),
        ]
    }

    func testMissingFolderIsNamedInTheError() throws {
        for (suffix, export) in try exporters() {
            let path = "/nonexistent-\(UUID().uuidString)/model.\(suffix)"
            XCTAssertThrowsError(try export(path)) { error in
                let error = error as? ExportError
                XCTAssertEqual(error?.path, path)
                XCTAssertTrue(error?.description.hasPrefix("\(path): ") ?? false, "\(String(describing: error))")
                XCTAssertTrue(error?.reason.contains("does not exist") ?? false, "\(String(describing: error))")
            }
        }
    }

    /// Writing over a folder fails at the final rename; the temporary file must be gone afterwards.
    func testUnwritableDestinationLeavesNothingBehind() throws {
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (suffix, export) in try exporters() {
            let path = folder.appendingPathComponent("occupied.\(suffix)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            XCTAssertThrowsError(try export(path)) { error in
                XCTAssertEqual((error as? ExportError)?.path, path)
            }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(left, ["occupied.mlmodel", "occupied.onnx"], "only the folders that were in the way")
    }

    func testInconsistentModelsAreRefused() throws {
        let network = try ExportFixtures.network()
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("model.onnx").path

        var twoLabels = try ExportFixtures.modelFile()
        twoLabels.labels.removeLast()
        XCTAssertThrowsError(try ONNXExporter.export(model: twoLabels, network: network, to: path)) { error in
            XCTAssertEqual((error as? ExportError)?.description, "\(path): the model has 2 labels but its head has 3 outputs")
        }

        var zeroScale = try ExportFixtures.modelFile()
        zeroScale.head.featureScale[5] = 0
        XCTAssertThrowsError(try CoreMLExporter.export(model: zeroScale, network: network, to: path)) { error in
            XCTAssertTrue((error as? ExportError)?.reason.contains("feature 5") ?? false, "\(error)")
        }

        var unevenStandardDeviation = try ExportFixtures.modelFile()
        unevenStandardDeviation.preprocessing.std = [58, 57, 57]
        XCTAssertThrowsError(try CoreMLExporter.export(model: unevenStandardDeviation, network: network, to: path)) { error in
            XCTAssertTrue((error as? ExportError)?.reason.contains("one standard deviation") ?? false, "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "no file after a refused export")
    }
}
