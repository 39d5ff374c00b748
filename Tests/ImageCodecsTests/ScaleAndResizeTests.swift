import ImageCodecs
import _TestSupport
import XCTest

/// Centre crop, decode-time shrinking, and the bicubic resize against Pillow and against the naive reference.
final class ScaleAndResizeTests: XCTestCase {
    func testCenterCropMatchesTheReferenceRule() {
        // side = Int(0.875 · min), offsets round half up.
        XCTAssertEqual(CenterCrop(width: 1000, height: 700, outputSide: 224, padding: 32), CenterCrop(left: 194, top: 44, side: 612))
        XCTAssertEqual(CenterCrop(width: 300, height: 200, outputSide: 224, padding: 32), CenterCrop(left: 63, top: 13, side: 175))
        XCTAssertEqual(CenterCrop(width: 256, height: 256, outputSide: 224, padding: 32), CenterCrop(left: 16, top: 16, side: 224))
        XCTAssertEqual(CenterCrop(width: 257, height: 300, outputSide: 224, padding: 32), CenterCrop(left: 17, top: 38, side: 224))
    }

    func testLargeJPEGIsDecodedAtTheSmallestSufficientDCTScale() throws {
        // 4000×3000: M = 1 gives 500×375 (crop 328 < 448); M = 2 gives 1000×750 (crop 656 ≥ 448).
        let path = try Fixtures.path("jpeg_large_4000x3000.jpg")
        let image = try ImageLoader.load(path: path)
        XCTAssertEqual([image.width, image.height], [1000, 750])
        XCTAssertGreaterThanOrEqual(CenterCrop(width: image.width, height: image.height, outputSide: 224, padding: 32).side, 448)

        let full = try ImageLoader.load(path: path, options: DecodeOptions(minimumCropSide: nil))
        XCTAssertEqual([full.width, full.height], [4000, 3000])

        let bigger = try ImageLoader.load(path: path, options: DecodeOptions(minimumCropSide: 700))
        // M = 3: 1500×1125, crop 984 ≥ 700; M = 2's 656 is not.
        XCTAssertEqual([bigger.width, bigger.height], [1500, 1125])
    }

    func testResizeMatchesPillowWithinOneLevel() throws {
        // Pillow computes in 22-bit fixed point, this code in double: at most one level apart.
        for (width, height) in [(1000, 700), (300, 200)] {
            let source = testPattern(width: width, height: height)
            let crop = CenterCrop(width: width, height: height, outputSide: 224, padding: 32)
            let resized = Resize.bicubic(source, crop: crop, outputSide: 224)
            let golden = try ImageLoader.load(
                path: try Fixtures.path("resize_pattern_\(width)x\(height).expected.png"),
                options: DecodeOptions(minimumCropSide: nil))
            assertPixelsClose(resized, golden, tolerance: 1, "pattern \(width)×\(height)")
        }
    }

    func testResizeMatchesTheNaiveReference() {
        // The fast path rounds its horizontal pass to 8 bits like Pillow; the reference does not round between
        // passes, so they may differ by one level. Samples stay within 40...215 so that no overshoot of the
        // kernel's negative lobes (at most ~20% of a step) reaches the clamp, where the two legitimately part.
        var generator = SeededGenerator(seed: 7)
        for (width, height, outputSide) in [(90, 70, 24), (50, 40, 35), (20, 30, 41), (64, 64, 56)] {
            let pixels = (0..<(width * height * 3)).map { _ in UInt8.random(in: 40...215, using: &generator) }
            let image = RGBImage(width: width, height: height, pixels: pixels)
            let crop = CenterCrop(width: width, height: height, outputSide: 224, padding: 32)
            assertPixelsClose(
                Resize.bicubic(image, crop: crop, outputSide: outputSide),
                Resize.referenceBicubic(image, crop: crop, outputSide: outputSide),
                tolerance: 1, "\(width)×\(height) → \(outputSide)")
        }
    }

    func testResizeOfUniformImageIsUniform() {
        let image = RGBImage(width: 80, height: 60, pixels: [UInt8](repeating: 77, count: 80 * 60 * 3))
        let resized = Resize.bicubic(image, crop: CenterCrop(width: 80, height: 60, outputSide: 224, padding: 32), outputSide: 13)
        XCTAssertEqual(Set(resized.pixels), [77])
    }

    func testPNGBoxReductionAveragesBlocks() throws {
        // png_rgb8 is 37×23; asking for crop side 9 allows f = 2 (18×11, crop 9), not f = 3 (12×7, crop 6).
        let path = try Fixtures.path("png_rgb8.png")
        let full = try ImageLoader.load(path: path, options: DecodeOptions(minimumCropSide: nil))
        let reduced = try ImageLoader.load(path: path, options: DecodeOptions(minimumCropSide: 9))
        XCTAssertEqual([reduced.width, reduced.height], [18, 11])
        for y in 0..<reduced.height {
            for x in 0..<reduced.width {
                for channel in 0..<3 {
                    var sum = 0
                    for dy in 0..<2 {
                        for dx in 0..<2 {
                            sum += Int(full.pixels[((2 * y + dy) * full.width + 2 * x + dx) * 3 + channel])
                        }
                    }
                    XCTAssertEqual(Int(reduced.pixels[(y * reduced.width + x) * 3 + channel]), (sum + 2) / 4)
                }
            }
        }
    }
}
