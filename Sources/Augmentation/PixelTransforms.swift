import Foundation

/// The pixel transforms after the crop, on a float image `[side, side, 3]` (row-major, interleaved RGB) with
/// values on the 0...255 scale. Each is a plain function of its parameters, so tests can check it alone.
public enum PixelTransforms {
    /// Mirrors `pixels` left–right in place: column x takes column `side − 1 − x`.
    public static func flipHorizontally(_ pixels: inout [Float], side: Int) {
        precondition(pixels.count == side * side * 3)
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<side {
                var left = y * side * 3, right = (y * side + side - 1) * 3
                while left < right {
                    for channel in 0..<3 { buffer.swapAt(left + channel, right + channel) }
                    left += 3
                    right -= 3
                }
            }
        }
    }

    /// Rotates by `degrees` counter-clockwise as the image is seen (x right, y down) about the centre
    /// `((side − 1) / 2, (side − 1) / 2)`, sampling bilinearly; samples outside take the nearest edge pixel
    /// (scipy's `ndimage.rotate(..., order=1, mode="nearest", reshape=False)`).
    ///
    /// Output pixel (x, y) reads source `(c + cos θ·(x − c) − sin θ·(y − c), c + sin θ·(x − c) + cos θ·(y − c))`.
    public static func rotate(_ pixels: [Float], side: Int, degrees: Double) -> [Float] {
        precondition(pixels.count == side * side * 3)
        let radians = degrees * Double.pi / 180
        let cosine = cos(radians), sine = sin(radians)
        let center = Double(side - 1) / 2
        var output = [Float](repeating: 0, count: pixels.count)
        let last = side - 1
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for y in 0..<side {
                    let dy = Double(y) - center
                    for x in 0..<side {
                        let dx = Double(x) - center
                        // Clamping the coordinate equals replicating the edge pixel for bilinear sampling.
                        let sourceX = min(max(center + cosine * dx - sine * dy, 0), Double(last))
                        let sourceY = min(max(center + sine * dx + cosine * dy, 0), Double(last))
                        let x0 = min(Int(sourceX), last), y0 = min(Int(sourceY), last)
                        let x1 = min(x0 + 1, last), y1 = min(y0 + 1, last)
                        let fractionX = sourceX - Double(x0), fractionY = sourceY - Double(y0)
                        let weights = (
                            (1 - fractionX) * (1 - fractionY), fractionX * (1 - fractionY),
                            (1 - fractionX) * fractionY, fractionX * fractionY
                        )
                        let corners = ((y0 * side + x0) * 3, (y0 * side + x1) * 3, (y1 * side + x0) * 3, (y1 * side + x1) * 3)
                        let out = (y * side + x) * 3
                        for channel in 0..<3 {
                            let value =
                                weights.0 * Double(source[corners.0 + channel])
                                + weights.1 * Double(source[corners.1 + channel])
                                + weights.2 * Double(source[corners.2 + channel])
                                + weights.3 * Double(source[corners.3 + channel])
                            destination[out + channel] = Float(value)
                        }
                    }
                }
            }
        }
        return output
    }

    /// Exposure then contrast, clamped to 0...255: `v' = v · 2^stops`, then `(v' − m) · contrast + m`, with m the
    /// mean luminance `0.299 R + 0.587 G + 0.114 B` of the exposed image (before clamping), computed in double.
    public static func adjustColor(_ pixels: inout [Float], stops: Double, contrast: Double) {
        let gain = pow(2, stops)
        let pixelCount = pixels.count / 3
        var luminance = 0.0
        for pixel in 0..<pixelCount {
            luminance +=
                gain
                * (0.299 * Double(pixels[pixel * 3]) + 0.587 * Double(pixels[pixel * 3 + 1])
                    + 0.114 * Double(pixels[pixel * 3 + 2]))
        }
        let mean = pixelCount > 0 ? luminance / Double(pixelCount) : 0
        for index in pixels.indices {
            let value = (Double(pixels[index]) * gain - mean) * contrast + mean
            pixels[index] = Float(min(max(value, 0), 255))
        }
    }

    /// The normalised Gaussian taps for standard deviation `sigma`, radius `⌈3σ⌉` (at least 1).
    public static func gaussianTaps(sigma: Double) -> [Double] {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var taps = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = taps.reduce(0, +)
        for index in taps.indices { taps[index] /= total }
        return taps
    }

    /// Separable Gaussian blur with edge pixels replicated beyond the border: rows, then columns, in double.
    public static func blur(_ pixels: [Float], side: Int, sigma: Double) -> [Float] {
        precondition(pixels.count == side * side * 3)
        let taps = gaussianTaps(sigma: sigma)
        let horizontal = blurPass(pixels.map { Double($0) }, side: side, taps: taps, alongRows: true)
        return blurPass(horizontal, side: side, taps: taps, alongRows: false).map { Float($0) }
    }

    /// One pass of `blur` over `[side, side, 3]` values: each sample becomes the taps' weighted sum of its
    /// neighbours along the row (`alongRows`) or the column, the edge sample standing in beyond the border.
    private static func blurPass(_ values: [Double], side: Int, taps: [Double], alongRows: Bool) -> [Double] {
        let radius = taps.count / 2
        var output = [Double](repeating: 0, count: values.count)
        for y in 0..<side {
            for x in 0..<side {
                for channel in 0..<3 {
                    var sum = 0.0
                    for tap in 0..<taps.count {
                        let source =
                            alongRows
                            ? y * side + min(max(x + tap - radius, 0), side - 1)
                            : min(max(y + tap - radius, 0), side - 1) * side + x
                        sum += taps[tap] * values[source * 3 + channel]
                    }
                    output[(y * side + x) * 3 + channel] = sum
                }
            }
        }
        return output
    }

    /// Adds independent Gaussian noise of standard deviation `standardDeviation` levels to every sample, clamped
    /// to 0...255, drawing from `random`.
    public static func addNoise(_ pixels: inout [Float], standardDeviation: Double, random: inout AugmentationRandom) {
        for index in pixels.indices {
            let value = Double(pixels[index]) + standardDeviation * random.normal()
            pixels[index] = Float(min(max(value, 0), 255))
        }
    }
}
