import ImageCodecs

/// The person detector graph's own preprocessing: a bilinear resize of the whole picture to `side × side` (no
/// crop, no aspect kept, no antialiasing) with TensorFlow 1's pixel mapping, then `x·2/255 − 1` per channel.
///
/// TensorFlow 1's `ResizeBilinear` (`align_corners` false, no half-pixel centres) maps output pixel `i` to input
/// coordinate `s = i · in/out`: corner to corner is *not* preserved and the last input row and column are
/// reached only when scaling up. The value is `v(⌊s⌋) + (v(⌈s⌉) − v(⌊s⌋))·(s − ⌊s⌋)`, first along x on the two rows,
/// then along y, in Float as TensorFlow computes it, the ceiling clamped to the last pixel.
///
/// Layout: `RGBImage` interleaved RGB `UInt8` in; `[side, side, 3]` Float out (NHWC for one picture).
public enum DetectorPreprocessing {
    /// The scale the graph multiplies by: Float(2/255), the constant `Preprocessor/mul/x`.
    static let scale = Float(2.0 / 255.0)

    /// Where one output coordinate samples along an axis: the two input positions and the weight of the second.
    struct Tap {
        let lower: Int
        let upper: Int
        let fraction: Float
    }

    /// The taps of every output position along an axis of `inputSize` pixels resized to `outputSize`.
    static func taps(inputSize: Int, outputSize: Int) -> [Tap] {
        let ratio = Float(inputSize) / Float(outputSize)
        return (0..<outputSize).map { index in
            let position = Float(index) * ratio
            let floor = position.rounded(.down)
            return Tap(lower: max(Int(floor), 0), upper: min(Int(position.rounded(.up)), inputSize - 1), fraction: position - floor)
        }
    }

    /// Writes the network input for `image` into `output` (`side·side·3` floats). The image must not be empty.
    public static func prepare(_ image: RGBImage, side: Int, into output: UnsafeMutablePointer<Float>) {
        precondition(image.width > 0 && image.height > 0 && side > 0, "DetectorPreprocessing: empty image or size")
        let columns = taps(inputSize: image.width, outputSize: side)
        let rows = taps(inputSize: image.height, outputSize: side)
        let rowStride = image.width * 3
        image.pixels.withUnsafeBufferPointer { pixels in
            let pixels = pixels.baseAddress!
            for (y, row) in rows.enumerated() {
                let top = pixels + row.lower * rowStride, bottom = pixels + row.upper * rowStride
                let destination = output + y * side * 3
                for (x, column) in columns.enumerated() {
                    let left = column.lower * 3, right = column.upper * 3
                    for channel in 0..<3 {
                        let topLeft = Float(top[left + channel]), topRight = Float(top[right + channel])
                        let bottomLeft = Float(bottom[left + channel]), bottomRight = Float(bottom[right + channel])
                        let upperValue = topLeft + (topRight - topLeft) * column.fraction
                        let lowerValue = bottomLeft + (bottomRight - bottomLeft) * column.fraction
                        let value = upperValue + (lowerValue - upperValue) * row.fraction
                        destination[x * 3 + channel] = scale * value - 1
                    }
                }
            }
        }
    }

    /// `prepare` into a new array.
    public static func prepare(_ image: RGBImage, side: Int) -> [Float] {
        var output = [Float](repeating: 0, count: side * side * 3)
        output.withUnsafeMutableBufferPointer { prepare(image, side: side, into: $0.baseAddress!) }
        return output
    }

    /// The naive reference: each output value computed on its own from the formula, the interpolation in Double,
    /// with `floor`/`ceil` of the mapped coordinate; tests hold `prepare` to it. The coordinate itself is the
    /// Float product `i · Float(in/out)`, because that rounding is part of TensorFlow's mapping (in Double, a
    /// 1,000-pixel axis would sample up to 6e-5 pixel elsewhere).
    public static func referencePrepare(_ image: RGBImage, side: Int) -> [Float] {
        var output = [Float](repeating: 0, count: side * side * 3)
        for y in 0..<side {
            for x in 0..<side {
                let sourceY = Double(Float(y) * (Float(image.height) / Float(side)))
                let sourceX = Double(Float(x) * (Float(image.width) / Float(side)))
                let y0 = Int(sourceY.rounded(.down)), y1 = min(Int(sourceY.rounded(.up)), image.height - 1)
                let x0 = Int(sourceX.rounded(.down)), x1 = min(Int(sourceX.rounded(.up)), image.width - 1)
                let fy = sourceY - Double(y0), fx = sourceX - Double(x0)
                for channel in 0..<3 {
                    func value(_ column: Int, _ row: Int) -> Double { Double(image.pixels[(row * image.width + column) * 3 + channel]) }
                    let upper = value(x0, y0) * (1 - fx) + value(x1, y0) * fx
                    let lower = value(x0, y1) * (1 - fx) + value(x1, y1) * fx
                    output[(y * side + x) * 3 + channel] = Float((upper * (1 - fy) + lower * fy) * 2 / 255 - 1)
                }
            }
        }
        return output
    }
}
