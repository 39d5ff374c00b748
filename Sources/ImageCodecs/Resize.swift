/// A rectangle of pixels: columns `left..<left + width`, rows `top..<top + height`.
public struct PixelRegion: Sendable, Equatable, Codable {
    /// First column.
    public var left: Int
    /// First row.
    public var top: Int
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int

    /// A region at an explicit place.
    public init(left: Int, top: Int, width: Int, height: Int) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
    }
}

/// Region resizing with the reference preprocessing's filter.
public enum Resize {
    /// Antialiased bicubic (a = −0.5) resize of the square region `crop` of `image` to `outputSide × outputSide`,
    /// as Pillow's `Image.resize(..., BICUBIC)` does on the cropped image.
    ///
    /// Separable: a horizontal pass over the crop's rows into an 8-bit intermediate, then a vertical pass. When
    /// shrinking by `s = side / outputSide`, the kernel is stretched by `s` (support `2s`), which is what makes it
    /// antialiased. Taps outside the crop are dropped and the rest renormalised, so only the crop's pixels count.
    /// Each pass rounds and clamps to 0...255, like Pillow's 8-bit path.
    public static func bicubic(_ image: RGBImage, crop: CenterCrop, outputSide: Int) -> RGBImage {
        precondition(outputSide > 0 && crop.side > 0, "resize needs a non-empty crop and output")
        return bicubic(
            image, region: PixelRegion(left: crop.left, top: crop.top, width: crop.side, height: crop.side),
            outputWidth: outputSide, outputHeight: outputSide)
    }

    /// The same filter on any rectangle `region` of `image`, to `outputWidth × outputHeight` (each axis has its own
    /// taps, so a non-square region is stretched to the output's shape, as Pillow's `crop(box).resize(size)` does).
    /// On a square region to a square output this is exactly the square resize above: the same taps, sums and
    /// roundings in the same order.
    public static func bicubic(_ image: RGBImage, region: PixelRegion, outputWidth: Int, outputHeight: Int) -> RGBImage {
        precondition(
            outputWidth > 0 && outputHeight > 0 && region.width > 0 && region.height > 0,
            "resize needs a non-empty region and output")
        precondition(
            region.left >= 0 && region.top >= 0 && region.left + region.width <= image.width
                && region.top + region.height <= image.height, "region must lie inside the image")
        let horizontalTaps = ResampleTaps(inputSize: region.width, outputSize: outputWidth)
        let verticalTaps = ResampleTaps(inputSize: region.height, outputSize: outputHeight)

        // Horizontal: input rows [top, top + height) → intermediate [height, outputWidth, 3].
        var intermediate = [UInt8](repeating: 0, count: region.height * outputWidth * 3)
        image.pixels.withUnsafeBufferPointer { source in
            intermediate.withUnsafeMutableBufferPointer { destination in
                for y in 0..<region.height {
                    let rowStart = ((region.top + y) * image.width + region.left) * 3
                    for x in 0..<outputWidth {
                        let first = horizontalTaps.firstInput[x]
                        var red = 0.0, green = 0.0, blue = 0.0
                        for tap in 0..<horizontalTaps.count[x] {
                            let weight = horizontalTaps.weights[x * horizontalTaps.stride + tap]
                            let index = rowStart + (first + tap) * 3
                            red += weight * Double(source[index])
                            green += weight * Double(source[index + 1])
                            blue += weight * Double(source[index + 2])
                        }
                        let out = (y * outputWidth + x) * 3
                        destination[out] = roundClamp(red)
                        destination[out + 1] = roundClamp(green)
                        destination[out + 2] = roundClamp(blue)
                    }
                }
            }
        }

        // Vertical: intermediate [height, outputWidth, 3] → output [outputHeight, outputWidth, 3].
        var output = [UInt8](repeating: 0, count: outputHeight * outputWidth * 3)
        let rowLength = outputWidth * 3
        intermediate.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for y in 0..<outputHeight {
                    let first = verticalTaps.firstInput[y]
                    for column in 0..<rowLength {
                        var sum = 0.0
                        for tap in 0..<verticalTaps.count[y] {
                            sum += verticalTaps.weights[y * verticalTaps.stride + tap] * Double(source[(first + tap) * rowLength + column])
                        }
                        destination[y * rowLength + column] = roundClamp(sum)
                    }
                }
            }
        }
        return RGBImage(width: outputWidth, height: outputHeight, pixels: output)
    }

    /// A naive 2-D reference of the same filter, for tests: every output sample is one direct double loop over
    /// the crop, in double precision, with the kernel evaluated in place and no intermediate rounding.
    public static func referenceBicubic(_ image: RGBImage, crop: CenterCrop, outputSide: Int) -> RGBImage {
        precondition(outputSide > 0 && crop.side > 0)
        let scale = Double(crop.side) / Double(outputSide)
        let stretch = max(scale, 1)
        let support = 2 * stretch
        var output = [UInt8](repeating: 0, count: outputSide * outputSide * 3)
        for outputY in 0..<outputSide {
            let centerY = (Double(outputY) + 0.5) * scale
            for outputX in 0..<outputSide {
                let centerX = (Double(outputX) + 0.5) * scale
                var sums = [0.0, 0.0, 0.0]
                var weightSumX = 0.0, weightSumY = 0.0
                for y in 0..<crop.side where abs(Double(y) + 0.5 - centerY) < support {
                    weightSumY += cubic((Double(y) + 0.5 - centerY) / stretch)
                }
                for x in 0..<crop.side where abs(Double(x) + 0.5 - centerX) < support {
                    weightSumX += cubic((Double(x) + 0.5 - centerX) / stretch)
                }
                for y in 0..<crop.side where abs(Double(y) + 0.5 - centerY) < support {
                    let weightY = cubic((Double(y) + 0.5 - centerY) / stretch) / weightSumY
                    for x in 0..<crop.side where abs(Double(x) + 0.5 - centerX) < support {
                        let weight = weightY * cubic((Double(x) + 0.5 - centerX) / stretch) / weightSumX
                        let pixel = image[crop.left + x, crop.top + y]
                        sums[0] += weight * Double(pixel.red)
                        sums[1] += weight * Double(pixel.green)
                        sums[2] += weight * Double(pixel.blue)
                    }
                }
                for channel in 0..<3 {
                    output[(outputY * outputSide + outputX) * 3 + channel] = roundClamp(sums[channel])
                }
            }
        }
        return RGBImage(width: outputSide, height: outputSide, pixels: output)
    }

    /// Keys' cubic convolution kernel with a = −0.5 (Pillow's BICUBIC), support 2.
    static func cubic(_ x: Double) -> Double {
        let a = -0.5
        let t = abs(x)
        if t < 1 { return ((a + 2) * t - (a + 3)) * t * t + 1 }
        if t < 2 { return (((t - 5) * t + 8) * t - 4) * a }
        return 0
    }

    static func roundClamp(_ value: Double) -> UInt8 {
        UInt8(min(max(value.rounded(), 0), 255))
    }
}

/// Per-output-sample taps of the stretched bicubic kernel along one axis, normalised to sum to 1.
///
/// Output sample i is centred at `(i + 0.5) · s` in input coordinates (`s = input/output`); its taps are the
/// inputs within `2 · max(s, 1)` of that centre, clipped to `0..<inputSize`, with Pillow's rounding of the bounds.
struct ResampleTaps {
    let firstInput: [Int]
    let count: [Int]
    /// `weights[i * stride + k]` is the weight of input `firstInput[i] + k` for output i.
    let weights: [Double]
    let stride: Int

    init(inputSize: Int, outputSize: Int) {
        let scale = Double(inputSize) / Double(outputSize)
        let stretch = max(scale, 1)
        let support = 2 * stretch
        stride = Int(support.rounded(.up)) * 2 + 1
        var firstInput = [Int](repeating: 0, count: outputSize)
        var count = [Int](repeating: 0, count: outputSize)
        var weights = [Double](repeating: 0, count: outputSize * stride)
        for output in 0..<outputSize {
            let center = (Double(output) + 0.5) * scale
            let first = max(Int(center - support + 0.5), 0)
            let end = min(Int(center + support + 0.5), inputSize)
            var total = 0.0
            for input in first..<max(end, first) {
                let weight = Resize.cubic((Double(input) - center + 0.5) / stretch)
                weights[output * stride + input - first] = weight
                total += weight
            }
            if total != 0 {
                for tap in 0..<(end - first) { weights[output * stride + tap] /= total }
            }
            firstInput[output] = first
            count[output] = max(end - first, 0)
        }
        self.firstInput = firstInput
        self.count = count
        self.weights = weights
    }
}
