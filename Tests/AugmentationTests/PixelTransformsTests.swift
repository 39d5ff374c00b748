import Augmentation
import Foundation
import XCTest
import _TestSupport

/// Each pixel transform against an independent reference: hand permutations, scipy, the formula in double, a
/// direct 2-D convolution.
final class PixelTransformsTests: XCTestCase {
    func testFlipMirrorsEveryRowExactlyAndTwiceIsTheIdentity() {
        let side = 7
        let image = TestImages.randomFloats(side: side, seed: 1)
        var flipped = image
        PixelTransforms.flipHorizontally(&flipped, side: side)
        for y in 0..<side {
            for x in 0..<side {
                for channel in 0..<3 {
                    XCTAssertEqual(flipped[(y * side + x) * 3 + channel], image[(y * side + side - 1 - x) * 3 + channel])
                }
            }
        }
        PixelTransforms.flipHorizontally(&flipped, side: side)
        XCTAssertEqual(flipped, image)
    }

    func testRotationByZeroIsTheIdentity() {
        let image = TestImages.randomFloats(side: 9, seed: 2)
        XCTAssertEqual(PixelTransforms.rotate(image, side: 9, degrees: 0), image)
    }

    func testRotationByNinetyDegreesIsTheQuarterTurnPermutation() {
        // Counter-clockwise as seen: output (x, y) shows input (side − 1 − y, x), i.e. numpy's rot90.
        for side in [8, 9] {
            let image = TestImages.randomFloats(side: side, seed: 3)
            var expected = [Float](repeating: 0, count: image.count)
            for y in 0..<side {
                for x in 0..<side {
                    for channel in 0..<3 {
                        expected[(y * side + x) * 3 + channel] = image[(x * side + (side - 1 - y)) * 3 + channel]
                    }
                }
            }
            // cos 90° is 6e-17 in double, not 0: the samples sit a hair off the grid.
            assertClose(PixelTransforms.rotate(image, side: side, degrees: 90), expected, absolute: 1e-3)
        }
    }

    func testSmallRotationsMatchScipy() throws {
        let side = 33
        let image = TestImages.randomFloats(side: side, seed: 4)
        for degrees in [7.25, -12.5, 0.5] {
            let script = """
                import numpy as np, scipy.ndimage as ndimage
                image = np.fromfile("image.f32", dtype=np.float32).reshape(\(side), \(side), 3).astype(np.float64)
                rotated = ndimage.rotate(image, \(degrees), axes=(1, 0), reshape=False, order=1, mode="nearest")
                rotated.astype(np.float32).tofile("rotated.f32")
                """
            let expected = ReferencePython.floats(
                try ReferencePython.run(
                    script: script, inputs: ["image.f32": ReferencePython.data(image)], output: "rotated.f32"))
            // Both interpolate in double; the float32 storage rounds at 255 · 2^-24 ≈ 2e-5.
            assertClose(
                PixelTransforms.rotate(image, side: side, degrees: degrees), expected, absolute: 1e-3,
                "\(degrees)°")
        }
    }

    func testExposureAndContrastFollowTheFormulaInDouble() {
        let side = 6
        let image = TestImages.randomFloats(side: side, seed: 5)
        for (stops, contrast) in [(0.5, 1.25), (-0.75, 0.8), (0.0, 1.0), (1.5, 0.5)] {
            var adjusted = image
            PixelTransforms.adjustColor(&adjusted, stops: stops, contrast: contrast)
            let gain = Foundation.exp2(stops)
            var luminanceSum = 0.0
            for pixel in 0..<(side * side) {
                let r = Double(image[pixel * 3]) * gain, g = Double(image[pixel * 3 + 1]) * gain
                let b = Double(image[pixel * 3 + 2]) * gain
                luminanceSum += 0.299 * r + 0.587 * g + 0.114 * b
            }
            let mean = luminanceSum / Double(side * side)
            let expected = image.map { Float(Swift.min(Swift.max((Double($0) * gain - mean) * contrast + mean, 0), 255)) }
            assertClose(adjusted, expected, absolute: 1e-3, "stops \(stops), contrast \(contrast)")
        }
        var identity = image
        PixelTransforms.adjustColor(&identity, stops: 0, contrast: 1)
        assertClose(identity, image, absolute: 1e-4)
    }

    func testBlurEqualsADirectTwoDimensionalConvolutionInDouble() {
        let side = 12
        let image = TestImages.randomFloats(side: side, seed: 6)
        for sigma in [0.4, 1.0, 1.7] {
            let radius = Int(Foundation.ceil(3 * sigma))
            var kernel = [[Double]](repeating: [Double](repeating: 0, count: 2 * radius + 1), count: 2 * radius + 1)
            var total = 0.0
            for j in -radius...radius {
                for i in -radius...radius {
                    let value = Foundation.exp(-Double(i * i + j * j) / (2 * sigma * sigma))
                    kernel[j + radius][i + radius] = value
                    total += value
                }
            }
            var expected = [Float](repeating: 0, count: image.count)
            for y in 0..<side {
                for x in 0..<side {
                    for channel in 0..<3 {
                        var sum = 0.0
                        for j in -radius...radius {
                            for i in -radius...radius {
                                let sourceX = Swift.min(Swift.max(x + i, 0), side - 1)
                                let sourceY = Swift.min(Swift.max(y + j, 0), side - 1)
                                sum += kernel[j + radius][i + radius] / total * Double(image[(sourceY * side + sourceX) * 3 + channel])
                            }
                        }
                        expected[(y * side + x) * 3 + channel] = Float(sum)
                    }
                }
            }
            assertClose(PixelTransforms.blur(image, side: side, sigma: sigma), expected, absolute: 1e-3, "σ \(sigma)")
        }
    }

    func testNoiseHasTheRequestedMeanAndSpreadAndRepeatsForASeed() {
        let count = 224 * 224 * 3
        let grey = [Float](repeating: 128, count: count)
        func noisy(seed: UInt64) -> [Float] {
            var pixels = grey
            var random = AugmentationRandom(seed: seed, epoch: 0, image: 0, transform: .noise, substream: 1)
            PixelTransforms.addNoise(&pixels, standardDeviation: 8, random: &random)
            return pixels
        }
        let first = noisy(seed: 9)
        let differences = first.map { Double($0) - 128 }
        let mean = differences.reduce(0, +) / Double(count)
        let deviation = (differences.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(count - 1)).squareRoot()
        // Standard error of the mean: 8 / √150528 ≈ 0.02; of the deviation ≈ 8 / √(2 · 150528) ≈ 0.015.
        XCTAssertEqual(mean, 0, accuracy: 0.1)
        XCTAssertEqual(deviation, 8, accuracy: 0.1)
        XCTAssertEqual(noisy(seed: 9), first)
        XCTAssertNotEqual(noisy(seed: 10), first)
    }
}
