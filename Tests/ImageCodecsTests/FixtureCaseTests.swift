import ImageCodecs
import XCTest

/// Runs every case of `Fixtures/manifest.json`: decoded pixels against the script's expectations, or the exact
/// error reason.
final class FixtureCaseTests: XCTestCase {
    func testManifestHasEveryKindOfFixture() throws {
        let files = Set(try Fixtures.manifest().map(\.file))
        for required in [
            "jpeg_baseline.jpg", "jpeg_progressive.jpg", "jpeg_gray.jpg", "jpeg_cmyk.jpg",
            "jpeg_ycck.jpg", "jpeg_exif6.jpg", "jpeg_exif3.jpg", "jpeg_truncated.jpg",
            "png_gray1.png", "png_gray2.png", "png_gray4.png", "png_gray8.png", "png_gray16.png",
            "png_gray_alpha8.png", "png_gray_alpha16.png", "png_palette1_trns.png",
            "png_palette8_trns.png", "png_rgb8.png", "png_rgb16.png", "png_rgba8.png",
            "png_rgba16.png", "png_rgb8_interlaced.png", "png_clipart.png", "png_truncated.png",
            "png_huge_header.png", "png_named.jpg", "empty.jpg", "text.jpg",
        ] {
            XCTAssertTrue(files.contains(required), "manifest lacks \(required)")
        }
    }

    func testEveryFixtureDecodesAsExpected() throws {
        for fixture in try Fixtures.manifest() {
            let path = try Fixtures.path(fixture.file)
            let options = fixture.options?.decodeOptions ?? DecodeOptions()
            let context = "\(fixture.file) (\(fixture.note))"
            if let expectedReason = fixture.error {
                do {
                    let image = try ImageLoader.load(path: path, options: options)
                    XCTFail("\(context): decoded to \(image.width)×\(image.height) instead of failing")
                } catch {
                    XCTAssertEqual(error.path, path, context)
                    XCTAssertTrue(
                        error.reason.hasPrefix(expectedReason),
                        "\(context): reason \"\(error.reason)\" does not start with \"\(expectedReason)\"")
                    XCTAssertFalse(error.description.contains("\n"), "\(context): error must be one line")
                }
                continue
            }
            let image: RGBImage
            do {
                image = try ImageLoader.load(path: path, options: options)
            } catch {
                XCTFail("\(context): \(error)")
                continue
            }
            XCTAssertEqual(image.width, fixture.width, context)
            XCTAssertEqual(image.height, fixture.height, context)
            XCTAssertEqual(image.pixels.count, image.width * image.height * 3, context)
            if let expectedName = fixture.expected, let width = fixture.width, let height = fixture.height {
                let expected = RGBImage(width: width, height: height, pixels: try Fixtures.bytes(expectedName))
                assertPixelsClose(image, expected, tolerance: fixture.tolerance ?? 0, context)
            }
            if let uniform = fixture.uniform {
                let mismatches = stride(from: 0, to: image.pixels.count, by: 3).filter { start in
                    (0..<3).contains { abs(Int(image.pixels[start + $0]) - Int(uniform[$0])) > fixture.tolerance ?? 0 }
                }
                XCTAssertTrue(mismatches.isEmpty, "\(context): \(mismatches.count) pixels differ from \(uniform)")
            }
        }
    }
}
