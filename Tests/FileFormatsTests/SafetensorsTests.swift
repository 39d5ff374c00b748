import FileFormats
import Foundation
import XCTest

final class SafetensorsTests: XCTestCase {
    func testRoundTripKeepsTensorsAndMetadata() throws {
        let file = SafetensorsFile(
            tensors: ["b": .init(shape: [2, 3], values: [1, 2, 3, 4, 5, 6]), "a": .init(shape: [1], values: [-0.5])],
            metadata: ["labels": "[\"x\",\"y\"]", "note": "quote \" and newline \n"])
        let parsed = try SafetensorsFile.parse(file.serialized(), path: "memory")
        XCTAssertEqual(parsed.tensors, file.tensors)
        XCTAssertEqual(parsed.metadata, file.metadata)
        XCTAssertEqual(file.serialized(), parsed.serialized(), "serialization must be deterministic")
    }

    func testTruncatedFileNamesTheProblem() {
        let bytes = SafetensorsFile(tensors: ["w": .init(shape: [4], values: [1, 2, 3, 4])]).serialized()
        XCTAssertThrowsError(try SafetensorsFile.parse(Array(bytes.dropLast(3)), path: "cut.safetensors")) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("cut.safetensors: "), message)
            XCTAssertTrue(message.contains("'w'"), message)
        }
        XCTAssertThrowsError(try SafetensorsFile.parse([1, 2, 3], path: "tiny")) { error in
            XCTAssertTrue("\(error)".contains("too short"), "\(error)")
        }
        XCTAssertThrowsError(try SafetensorsFile.parse(Array("hello world, not a model".utf8), path: "text")) { error in
            XCTAssertTrue("\(error)".hasPrefix("text: "), "\(error)")
        }
    }

    /// Found by the model_file fuzz harness: 2^62 elements fit in Int, their 2^64 bytes do not, and computing
    /// the byte count trapped instead of refusing the file.
    func testShapeTooLargeToAddressIsAnErrorNotATrap() {
        let header = Array(#"{"x":{"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,0]}}"#.utf8)
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: header.count >> (8 * $0)) }
        bytes += header
        XCTAssertThrowsError(try SafetensorsFile.parse(bytes, path: "huge.safetensors")) { error in
            XCTAssertEqual("\(error)", "huge.safetensors: tensor 'x' has shape [4611686018427387904], too large for any file")
        }
    }

    func testAtomicWriteReplacesWholeFile() throws {
        let folder = NSTemporaryDirectory() + "atomic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.bin"
        try AtomicFile.write([1, 2, 3], to: path)
        try AtomicFile.write([9], to: path)
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data([9]))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["out.bin"], "no temporary file may remain")
        XCTAssertThrowsError(try AtomicFile.write([1], to: folder + "/missing/out.bin"))
    }
}
