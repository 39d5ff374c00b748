import Foundation
import ImageCodecs
import XCTest

/// WebP, HEIC, TIFF, GIF and BMP: every case of `Fixtures/formats-manifest.json` (pictures written by Debian's
/// tools, expected pixels from Pillow and pillow-heif, by `scripts/fixtures/make-format-fixtures.py`) decoded from
/// the file and from memory, plus orientation, sniffing and the errors of broken files.
///
/// Tolerances are the manifest's: 0 for lossless files; for lossy WebP and HEIC, the difference the script measured
/// between the reference's library version and Debian's own decoder (dwebp, heif-convert), plus one.
final class FormatFixtureTests: XCTestCase {
    private let options = DecodeOptions(minimumCropSide: nil)

    func testManifestHasEveryFormatAndCase() throws {
        let files = Set(try Fixtures.manifest("formats-manifest.json").map(\.file))
        for required in [
            "webp_lossless.webp", "webp_lossy.webp", "webp_lossy_alpha.webp", "webp_exif6.webp",
            "webp_animated.webp", "webp_truncated.webp", "webp_huge_header.webp",
            "heic_photo.heic", "heic_alpha.heic", "heic_irot_exif6.heic", "heic_truncated.heic",
            "heic_huge_header.heic", "tiff_rgb_lzw.tif", "tiff_rgb16.tif", "tiff_gray.tif",
            "tiff_palette.tif", "tiff_rgba.tif", "tiff_two_pages.tif", "tiff_orientation5.tif",
            "tiff_orientation6.tif", "tiff_orientation8.tif", "tiff_truncated.tif", "tiff_huge_header.tif",
            "gif_still.gif", "gif_interlaced.gif", "gif_transparent.gif", "gif_animated.gif",
            "gif_truncated.gif", "gif_huge_header.gif", "bmp_rgb24.bmp", "bmp_rgb24_v5.bmp",
            "bmp_palette8.bmp", "bmp_palette4.bmp", "bmp_mono.bmp", "bmp_rgb565.bmp", "bmp_rgba32.bmp",
            "bmp_top_down.bmp", "bmp_truncated.bmp", "bmp_huge_header.bmp", "bmp_rle8.bmp",
            "bmp_rle8_truncated.bmp",
        ] {
            XCTAssertTrue(files.contains(required), "formats-manifest.json lacks \(required)")
        }
    }

    func testEveryFormatFixtureDecodesToTheReferencePixels() throws {
        for fixture in try Fixtures.manifest("formats-manifest.json") {
            let path = try Fixtures.path(fixture.file)
            let options = fixture.options?.decodeOptions ?? DecodeOptions()
            let context = "\(fixture.file) (\(fixture.note))"
            let bytes = try Fixtures.bytes(fixture.file)
            if let expectedReason = fixture.error {
                for (how, decode) in [
                    ("file", { () throws(ImageError) -> RGBImage in try ImageLoader.load(path: path, options: options) }),
                    (
                        "memory",
                        { () throws(ImageError) -> RGBImage in
                            try ImageLoader.decode(bytes: bytes, path: path, options: options)
                        }
                    ),
                ] {
                    do {
                        let image = try decode()
                        XCTFail("\(context), from \(how): decoded to \(image.width)×\(image.height) instead of failing")
                    } catch {
                        XCTAssertEqual(error.path, path, context)
                        XCTAssertTrue(
                            error.reason.hasPrefix(expectedReason),
                            "\(context), from \(how): reason \"\(error.reason)\" does not start with \"\(expectedReason)\"")
                        XCTAssertFalse(error.description.contains("\n"), "\(context): error must be one line")
                    }
                }
                continue
            }
            guard let width = fixture.width, let height = fixture.height, let expectedName = fixture.expected else {
                XCTFail("\(context): a pixel case needs a size and expected pixels")
                continue
            }
            let expected = RGBImage(width: width, height: height, pixels: try Fixtures.bytes(expectedName))
            do {
                let fromFile = try ImageLoader.load(path: path, options: options)
                assertPixelsClose(fromFile, expected, tolerance: fixture.tolerance ?? 0, context)
                let fromMemory = try ImageLoader.decode(bytes: bytes, path: path, options: options)
                XCTAssertEqual(fromMemory, fromFile, "\(context): memory and file decodes differ")
                XCTAssertEqual(
                    try ImageLoader.size(path: path, options: options), ImageSize(width: width, height: height),
                    "\(context): the header's displayed size")
            } catch {
                XCTFail("\(context): \(error)")
            }
        }
    }

    /// Red top-left, green top-right, blue bottom-left, yellow bottom-right when upright (48 × 32).
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

    func testHEICIsTurnedByItsIrotBoxAndNotAgainByItsEXIFTag() throws {
        // The file's EXIF says 6 too, as an iPhone's does: applying it after libheif's irot would turn it twice.
        let path = try Fixtures.path("heic_irot_exif6.heic")
        for applies in [true, false] {
            var options = self.options
            options.appliesEXIFOrientation = applies
            let image = try ImageLoader.load(path: path, options: options)
            XCTAssertEqual([image.width, image.height], [48, 32])
            XCTAssertEqual(corners(image), ["red", "green", "blue", "yellow"])
            XCTAssertEqual(try ImageLoader.size(path: path, options: options), ImageSize(width: 48, height: 32))
        }
    }

    func testWebPAndTIFFOrientationsTurnThePicture() throws {
        let expectations: [(String, [Int], [String])] = [
            ("webp_exif6.webp", [32, 48], ["blue", "red", "yellow", "green"]),
            ("tiff_orientation6.tif", [32, 48], ["blue", "red", "yellow", "green"]),
            ("tiff_orientation8.tif", [32, 48], ["green", "yellow", "red", "blue"]),
            // 5 is a transposition: the stored top-left stays top-left.
            ("tiff_orientation5.tif", [32, 48], ["red", "blue", "green", "yellow"]),
        ]
        for (name, size, expectedCorners) in expectations {
            let image = try ImageLoader.load(path: try Fixtures.path(name), options: options)
            XCTAssertEqual([image.width, image.height], size, name)
            XCTAssertEqual(corners(image), expectedCorners, name)
            var raw = options
            raw.appliesEXIFOrientation = false
            let stored = try ImageLoader.load(path: try Fixtures.path(name), options: raw)
            XCTAssertEqual(corners(stored), ["red", "green", "blue", "yellow"], "\(name) with orientation ignored")
            XCTAssertEqual(try ImageLoader.size(path: try Fixtures.path(name), options: raw), ImageSize(width: 48, height: 32))
        }
    }

    func testFormatIsSniffedFromTheBytesNotTheName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("formats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for source in ["webp_lossless.webp", "heic_photo.heic", "tiff_rgb_lzw.tif", "gif_still.gif", "bmp_rgb24.bmp"] {
            let renamed = folder.appendingPathComponent(source + ".jpg")
            try Data(try Fixtures.bytes(source)).write(to: renamed)
            XCTAssertEqual(
                try ImageLoader.load(path: renamed.path, options: options),
                try ImageLoader.load(path: try Fixtures.path(source), options: options), source)
        }
    }

    func testCorruptDataAfterEachSignatureIsATypedError() throws {
        // Each format's signature followed by noise: the library refuses it, the shim returns its message.
        // The same noise every run: a linear congruential sequence's high bytes.
        var state: UInt32 = 12_345
        let noise = (0..<600).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12_345
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let heads: [(String, [UInt8])] = [
            ("WebP", Array("RIFF".utf8) + [0x58, 0x02, 0, 0] + Array("WEBPVP8 ".utf8)),
            ("HEIF", [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)),
            ("TIFF", [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]),
            ("GIF", Array("GIF89a".utf8)),
            ("BMP", [0x42, 0x4D] + [UInt8](repeating: 0, count: 12) + [40, 0, 0, 0]),
        ]
        // A small pixel limit: noise often claims a large picture, and the point here is the error, not the memory
        // such a claim may take within the limit (LargePNGMemoryTests, run later in the process, reads its peak).
        let options = DecodeOptions(maximumPixels: 1 << 20, minimumCropSide: nil)
        for (format, head) in heads {
            for length in [0, 7, 100, 600] {
                let bytes = head + noise.prefix(length)
                XCTAssertThrowsError(
                    try ImageLoader.decode(bytes: bytes, path: "broken", options: options),
                    "\(format) + \(length) bytes of noise"
                ) { error in
                    guard let error = error as? ImageError else { return XCTFail("\(format): \(error) is not an ImageError") }
                    XCTAssertEqual(error.path, "broken")
                    XCTAssertFalse(error.reason.isEmpty, format)
                    XCTAssertFalse(error.description.contains("\n"), format)
                }
            }
        }
    }

    func testEveryPrefixOfEveryFormatFixtureFailsOrDecodesWithoutCrashing() throws {
        // Cut at every 97th byte: a crash, an abort or a print from a C library would show here.
        for name in ["webp_lossy_alpha.webp", "heic_alpha.heic", "tiff_rgba.tif", "gif_interlaced.gif", "bmp_palette4.bmp"] {
            let bytes = try Fixtures.bytes(name)
            for length in stride(from: 0, to: bytes.count, by: 97) {
                do {
                    _ = try ImageLoader.decode(bytes: Array(bytes.prefix(length)), path: name, options: options)
                } catch {
                    XCTAssertEqual(error.path, name)
                }
            }
        }
    }

    func testLargeWebPIsShrunkWhileDecodingLikeAPNG() throws {
        // The default options box-reduce a large picture; a small one stays as it is.
        let image = try ImageLoader.load(path: try Fixtures.path("webp_lossless.webp"))
        XCTAssertEqual([image.width, image.height], [32, 24])
        var crop = options
        crop.cropAndResize = CropAndResize(outputSide: 16, padding: 0)
        let cropped = try ImageLoader.load(path: try Fixtures.path("webp_lossless.webp"), options: crop)
        XCTAssertEqual([cropped.width, cropped.height], [16, 16])
    }
}
