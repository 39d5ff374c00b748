import Foundation
import ImageCodecs
import XCTest

/// EXIF orientation by coloured corners, and the one-line errors for files that are not images.
final class OrientationAndErrorTests: XCTestCase {
    private let options = DecodeOptions(minimumCropSide: nil)

    /// The stored 48×32 image has red top-left, green top-right, blue bottom-left, yellow bottom-right.
    private func corners(_ image: RGBImage) -> [String] {
        func name(_ x: Int, _ y: Int) -> String {
            let pixel = image[x, y]
            switch (pixel.red > 128, pixel.green > 128, pixel.blue > 128) {
            case (true, false, false): return "red"
            case (false, true, false): return "green"
            case (false, false, true): return "blue"
            case (true, true, false): return "yellow"
            default: return "other"
            }
        }
        return [name(2, 2), name(image.width - 3, 2), name(2, image.height - 3), name(image.width - 3, image.height - 3)]
    }

    func testOrientation6IsTurnedClockwise() throws {
        let image = try ImageLoader.load(path: try Fixtures.path("jpeg_exif6.jpg"), options: options)
        XCTAssertEqual([image.width, image.height], [32, 48])
        XCTAssertEqual(corners(image), ["blue", "red", "yellow", "green"])
    }

    func testOrientation3IsTurnedHalfway() throws {
        let image = try ImageLoader.load(path: try Fixtures.path("jpeg_exif3.jpg"), options: options)
        XCTAssertEqual([image.width, image.height], [48, 32])
        XCTAssertEqual(corners(image), ["yellow", "blue", "green", "red"])
    }

    func testOrientation8IsTurnedCounterclockwise() throws {
        let image = try ImageLoader.load(path: try Fixtures.path("jpeg_exif8.jpg"), options: options)
        XCTAssertEqual([image.width, image.height], [32, 48])
        XCTAssertEqual(corners(image), ["green", "yellow", "red", "blue"])
    }

    func testOrientationCanBeIgnored() throws {
        var raw = options
        raw.appliesEXIFOrientation = false
        let image = try ImageLoader.load(path: try Fixtures.path("jpeg_exif6.jpg"), options: raw)
        XCTAssertEqual(corners(image), ["red", "green", "blue", "yellow"])
    }

    private func reason(loading path: String, options: DecodeOptions = DecodeOptions()) -> String? {
        do {
            _ = try ImageLoader.load(path: path, options: options)
            return nil
        } catch {
            XCTAssertEqual(error.description, "\(path): \(error.reason)")
            return error.reason
        }
    }

    func testMissingFileIsNamed() {
        let path = "/nonexistent-folder/picture.jpg"
        XCTAssertEqual(reason(loading: path), "no such file")
    }

    func testFolderIsNotAnImage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("codecs-\(UUID().uuidString).jpg")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        XCTAssertEqual(reason(loading: folder.path), "is a folder, not a file")
    }

    func testUnreadableFileIsReported() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("codecs-\(UUID().uuidString).png")
        try Data([0x89, 0x50]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: file.path)
        if getuid() == 0 {
            // Root reads through permission bits; the short bytes are still not an image.
            XCTAssertEqual(reason(loading: file.path), "not a picture Workbench can read (JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP)")
        } else {
            XCTAssertEqual(reason(loading: file.path)?.hasPrefix("cannot open: permission denied"), true)
        }
    }

    func testEmptyAndTextFiles() throws {
        XCTAssertEqual(reason(loading: try Fixtures.path("empty.jpg")), "empty file")
        XCTAssertEqual(reason(loading: try Fixtures.path("text.jpg")), "not a picture Workbench can read (JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP)")
    }

    func testTruncatedJPEGIsAnErrorNotGreyPadding() throws {
        let reason = reason(loading: try Fixtures.path("jpeg_truncated.jpg"))
        XCTAssertEqual(reason, "truncated or corrupt JPEG data: Premature end of JPEG file")
    }

    func testHugePNGHeaderFailsFastWithTheNumbers() throws {
        let path = try Fixtures.path("png_huge_header.png")
        XCTAssertEqual(
            reason(loading: path),
            "image is 100000×100000 (10000 megapixels), over the limit of 300 megapixels")
    }

    func testPixelLimitAppliesToJPEGToo() throws {
        let limited = DecodeOptions(maximumPixels: 1_000_000)
        XCTAssertEqual(
            reason(loading: try Fixtures.path("jpeg_large_4000x3000.jpg"), options: limited),
            "image is 4000×3000 (12 megapixels), over the limit of 1 megapixels")
    }

    func testEveryPrefixOfAJPEGFailsCleanlyOrDecodes() throws {
        // Cutting a file anywhere must give an error or an image, never a crash or an exit().
        let bytes = try Fixtures.bytes("jpeg_baseline.jpg")
        for length in stride(from: 0, to: bytes.count, by: 7) {
            do {
                _ = try ImageLoader.decode(bytes: Array(bytes[0..<length]), path: "cut.jpg", options: options)
            } catch {
                XCTAssertFalse(error.reason.isEmpty)
            }
        }
    }

    func testEveryPrefixOfAPNGFails() throws {
        let bytes = try Fixtures.bytes("png_rgba8.png")
        for length in stride(from: 0, to: bytes.count - 12, by: 5) {
            XCTAssertThrowsError(
                try ImageLoader.decode(
                    bytes: Array(bytes[0..<length]), path: "cut.png",
                    options: options), "prefix of \(length) bytes")
        }
    }
}
