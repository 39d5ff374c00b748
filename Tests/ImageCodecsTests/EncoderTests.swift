import ImageCodecs
import XCTest

/// The JPEG and PNG encoders, read back by the decoders (libjpeg and libpng's reading side, code independent of
/// the encoders) and checked against the pixels that went in.
final class EncoderTests: XCTestCase {
    func testPNGRoundTripIsExact() throws {
        let image = testPattern(width: 61, height: 37)
        let bytes = try PNGEncoder.encode(image, name: "pattern")
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "PNG signature")
        let decoded = try ImageLoader.decode(bytes: bytes, path: "pattern.png", options: DecodeOptions(minimumCropSide: nil))
        XCTAssertEqual(decoded, image)
    }

    func testPNGKeepsTransparency() throws {
        // Two pixels: opaque red, and blue at alpha 51. The decoder composites over white:
        // (c·a + 255·(255 − a) + 127) / 255 → blue pixel (204, 204, 255).
        let bytes = try PNGEncoder.encode(rgba: [255, 0, 0, 255, 0, 0, 255, 51], width: 2, height: 1, name: "two")
        let decoded = try ImageLoader.decode(bytes: bytes, path: "two.png", options: DecodeOptions(minimumCropSide: nil))
        XCTAssertEqual(decoded.pixels, [255, 0, 0, 204, 204, 255])
    }

    func testJPEGRoundTripIsCloseAndFullChromaKeepsColourEdges() throws {
        let image = testPattern(width: 96, height: 64)
        func meanError(fullChroma: Bool) throws -> Double {
            let bytes = try JPEGEncoder.encode(image, quality: 90, fullChroma: fullChroma, name: "pattern")
            XCTAssertEqual(Array(bytes.prefix(3)), [0xFF, 0xD8, 0xFF], "JPEG start of image")
            let decoded = try ImageLoader.decode(bytes: bytes, path: "pattern.jpg", options: DecodeOptions(minimumCropSide: nil))
            XCTAssertEqual([decoded.width, decoded.height], [96, 64])
            return zip(decoded.pixels, image.pixels).map { abs(Double($0) - Double($1)) }.reduce(0, +) / Double(image.pixels.count)
        }
        let full = try meanError(fullChroma: true), subsampled = try meanError(fullChroma: false)
        // Quality 90 on a pattern of sharp blue squares: a few levels on average.
        XCTAssertLessThan(full, 4)
        XCTAssertLessThan(full, subsampled, "4:4:4 keeps the blue squares' edges that 4:2:0 smears")
    }

    func testEncodersRefuseEmptyImagesNamingThem() {
        let empty = RGBImage(width: 0, height: 0, pixels: [])
        XCTAssertThrowsError(try JPEGEncoder.encode(empty, name: "thumbnail of a.png")) { error in
            XCTAssertTrue("\(error)".hasPrefix("thumbnail of a.png: cannot encode as JPEG"), "\(error)")
        }
        XCTAssertThrowsError(try PNGEncoder.encode(empty, name: "overlay")) { error in
            XCTAssertTrue("\(error)".hasPrefix("overlay: cannot encode as PNG"), "\(error)")
        }
        XCTAssertThrowsError(try PNGEncoder.encode(rgba: [1, 2, 3], width: 1, height: 1, name: "short")) { error in
            XCTAssertTrue("\(error)".contains("3 samples for 1×1×4"), "\(error)")
        }
    }
}
