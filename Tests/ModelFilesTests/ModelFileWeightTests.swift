import FileFormats
import Foundation
import ModelFiles
import XCTest

/// A model with a NaN or an infinity would make every prediction NaN (and `classify --json` print `nan`, which is
/// not JSON): such files are refused on reading, naming the tensor, and such models are never written.
final class ModelFileWeightTests: XCTestCase {
    /// The sample model's container bytes with one head weight replaced by `value`, written without the checks.
    private func writeWithWeight(_ value: Float, at index: Int, folder: String) throws -> String {
        let model = sampleModel()
        let path = folder + "/bad.wbmodel"
        var container = try SafetensorsFile.parse(try roundTrip(model, folder: folder), path: path)
        container.tensors["head.weight"]!.values[index] = value
        // Sealed again, as a writer without the checks would: the checksum is not what refuses this file.
        container.metadata["tensor_data_sha256"] = ModelFile.tensorDataChecksum(container)
        // Serialised by the container directly: the model file's own writer refuses this, as tested below.
        try Data(container.serialized()).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func roundTrip(_ model: ModelFile, folder: String) throws -> [UInt8] {
        let path = folder + "/good.wbmodel"
        try model.write(path: path)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func testNonFiniteWeightsInAFileAreRefusedNamingTheTensor() throws {
        let folder = try makeTemporaryFolder(self)
        for (value, shown) in [(Float.nan, "nan"), (Float.infinity, "inf"), (-Float.infinity, "-inf")] {
            let path = try writeWithWeight(value, at: 5, folder: folder)
            XCTAssertThrowsError(try ModelFile.read(path: path, expectedBackboneShapes: sampleBackboneShapes)) { error in
                XCTAssertEqual("\(error)", "\(path): corrupted: tensor 'head.weight' holds \(shown) at index 5: weights must be finite numbers")
            }
        }
    }

    func testAModelWithNonFiniteWeightsIsNeverWritten() throws {
        let folder = try makeTemporaryFolder(self)
        var model = sampleModel()
        model.head.bias[1] = .nan
        let path = folder + "/diverged.wbmodel"
        XCTAssertThrowsError(try model.write(path: path)) { error in
            XCTAssertEqual("\(error)", "\(path): cannot write: tensor 'head.bias' holds nan at index 1: weights must be finite numbers")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        var backbone = sampleModel()
        backbone.backboneTensors["stem.bn.bias"]!.values[0] = -.infinity
        XCTAssertThrowsError(try backbone.write(path: path)) { error in
            XCTAssertTrue("\(error)".contains("tensor 'backbone.stem.bn.bias' holds -inf at index 0"), "\(error)")
        }
    }

    func testDevicesAndFIFOsAreNotModelFiles() throws {
        let folder = try makeTemporaryFolder(self)
        let fifo = folder + "/model.wbmodel"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        XCTAssertThrowsError(try ModelFile.read(path: fifo)) { error in
            XCTAssertEqual("\(error)", "\(fifo): not a regular file (a FIFO)")
        }
        XCTAssertThrowsError(try ModelFile.read(path: "/dev/zero")) { error in
            XCTAssertEqual("\(error)", "/dev/zero: not a regular file (a character device)")
        }
    }
}
