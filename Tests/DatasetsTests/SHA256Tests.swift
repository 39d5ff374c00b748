@testable import Datasets
import XCTest
import _TestSupport

/// Vectors are the published FIPS 180-4 / NIST examples, independent of this code.
final class SHA256Tests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { ContentHash(digest: bytes).hex }

    func testKnownVectors() {
        XCTAssertEqual(hex(SHA256.hash([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex(SHA256.hash(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            hex(SHA256.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testReferenceMatchesKnownVectors() {
        XCTAssertEqual(hex(SHA256Reference.hash([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex(SHA256Reference.hash(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testFastPathMatchesReferenceAcrossBlockBoundaries() {
        var generator = SeededGenerator(seed: 11)
        // Every length around the one- and two-block padding boundaries, then a few longer messages.
        for length in Array(0...130) + [255, 256, 1000, 4097] {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertEqual(SHA256.hash(message), SHA256Reference.hash(message), "length \(length)")
        }
    }

    func testStreamingInUnevenPiecesMatchesOneShot() {
        var generator = SeededGenerator(seed: 12)
        let message = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var hasher = SHA256()
        var offset = 0
        for pieceLength in [1, 63, 64, 65, 0, 7, 128, 1000, 3] {
            hasher.update(Array(message[offset..<(offset + pieceLength)]))
            offset += pieceLength
        }
        hasher.update(Array(message[offset...]))
        XCTAssertEqual(hasher.finalize(), SHA256.hash(message))
    }

    func testFileHashMatchesInMemoryHash() throws {
        let builder = try FolderBuilder(self)
        var generator = SeededGenerator(seed: 13)
        // Larger than the 1 MiB read chunk so the loop runs more than once.
        let bytes = (0..<(1 << 20) + 12345).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = try builder.file("blob.bin", bytes)
        XCTAssertEqual(try ContentHash.ofFile(path: path), ContentHash.of(bytes))
        XCTAssertThrowsError(try ContentHash.ofFile(path: builder.root + "/missing")) { error in
            XCTAssertEqual("\(error)", builder.root + "/missing: no such file")
        }
    }
}
