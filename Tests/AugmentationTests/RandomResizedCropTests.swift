import Augmentation
import Foundation
import ImageCodecs
import Models
import XCTest
import _TestSupport

/// The crop's rectangles as properties over awkward sizes, and its resize against Pillow.
final class RandomResizedCropTests: XCTestCase {
    func testRectanglesLieInsideTheImageAndWithinTheRanges() {
        let crop = AugmentationPolicy.Crop.standard
        let sizes = [(1, 1), (1, 500), (500, 1), (2, 3), (3, 7), (13, 5), (224, 224), (223, 225), (641, 479), (999, 17)]
        var fallbacks = 0, tries = 0
        for (width, height) in sizes {
            for image in 0..<200 {
                var random = AugmentationRandom(seed: 7, epoch: 1, image: image, transform: .crop)
                let (region, isFallback) = RandomResizedCrop.rectangle(width: width, height: height, crop: crop, random: &random)
                tries += 1
                XCTAssertGreaterThanOrEqual(region.width, 1)
                XCTAssertGreaterThanOrEqual(region.height, 1)
                XCTAssertGreaterThanOrEqual(region.left, 0)
                XCTAssertGreaterThanOrEqual(region.top, 0)
                XCTAssertLessThanOrEqual(region.left + region.width, width, "\(width)×\(height): \(region)")
                XCTAssertLessThanOrEqual(region.top + region.height, height, "\(width)×\(height): \(region)")
                if isFallback {
                    fallbacks += 1
                    continue
                }
                // Width and height are the rounded √(area·ratio) and √(area/ratio): the exact values lie within
                // half a pixel, so the ranges must hold for some point of that box.
                let area = Double(width * height)
                let smallestArea = Swift.max(Double(region.width) - 0.5, 0) * Swift.max(Double(region.height) - 0.5, 0)
                let largestArea = (Double(region.width) + 0.5) * (Double(region.height) + 0.5)
                XCTAssertLessThanOrEqual(smallestArea / area, crop.maximumArea + 1e-9, "\(width)×\(height): \(region)")
                XCTAssertGreaterThanOrEqual(largestArea / area, crop.minimumArea - 1e-9, "\(width)×\(height): \(region)")
                let widestRatio = (Double(region.width) + 0.5) / Swift.max(Double(region.height) - 0.5, 1e-9)
                let narrowestRatio = Swift.max(Double(region.width) - 0.5, 0) / (Double(region.height) + 0.5)
                XCTAssertGreaterThanOrEqual(widestRatio, crop.minimumAspectRatio, "\(width)×\(height): \(region)")
                XCTAssertLessThanOrEqual(narrowestRatio, crop.maximumAspectRatio, "\(width)×\(height): \(region)")
            }
        }
        // Thin and tiny images fall back; ordinary ones almost never do.
        XCTAssertGreaterThan(fallbacks, 0)
        XCTAssertLessThan(fallbacks, tries / 2)
    }

    func testFallbackClampsTheAspectRatioAndCentres() {
        var random = AugmentationRandom(seed: 1, epoch: 0, image: 0, transform: .crop)
        let (region, isFallback) = RandomResizedCrop.rectangle(width: 400, height: 10, crop: .standard, random: &random)
        XCTAssertTrue(isFallback)
        // 10 rows at the widest ratio 4/3: 13 columns, centred.
        XCTAssertEqual(region, PixelRegion(left: 193, top: 0, width: 13, height: 10))
    }

    func testCroppedResizeMatchesPillowWithinOneLevel() throws {
        let width = 301, height = 257
        let pixels = TestImages.pattern(width: width, height: height, seed: 11)
        let image = RGBImage(width: width, height: height, pixels: pixels)
        let regions = [
            PixelRegion(left: 17, top: 9, width: 251, height: 190), PixelRegion(left: 0, top: 40, width: 120, height: 217),
            PixelRegion(left: 300, top: 256, width: 1, height: 1),
        ]
        for region in regions {
            let resized = Resize.bicubic(image, region: region, outputWidth: 224, outputHeight: 224)
            let script = """
                import numpy as np
                from PIL import Image
                pixels = np.fromfile("image.u8", dtype=np.uint8).reshape(\(height), \(width), 3)
                box = (\(region.left), \(region.top), \(region.left + region.width), \(region.top + region.height))
                out = Image.fromarray(pixels).crop(box).resize((224, 224), Image.BICUBIC)
                np.asarray(out, dtype=np.uint8).tofile("resized.u8")
                """
            let expected = [UInt8](try ReferencePython.run(script: script, inputs: ["image.u8": Data(pixels)], output: "resized.u8"))
            XCTAssertEqual(expected.count, resized.pixels.count)
            let worst = zip(expected, resized.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
            // Pillow's 22-bit fixed-point weights against doubles, as ImageCodecs' square resize.
            XCTAssertLessThanOrEqual(worst, 1, "\(region)")
        }
    }
}
