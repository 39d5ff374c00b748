/// Global average pooling: the mean over all pixels of each channel.
public enum GlobalAveragePool {
    /// input `[batch, pixels, channels]` (NHWC with H·W flattened) → output `[batch, channels]`.
    public static func forward(input: UnsafePointer<Float>, batch: Int, pixelCount: Int, channels: Int, output: UnsafeMutablePointer<Float>) {
        precondition(pixelCount > 0, "GlobalAveragePool: no pixels")
        let scale = 1 / Float(pixelCount)
        for n in 0..<batch {
            let sums = output + n * channels
            sums.update(repeating: 0, count: channels)
            for pixel in 0..<pixelCount {
                let source = input + (n * pixelCount + pixel) * channels
                for channel in 0..<channels { sums[channel] += source[channel] }
            }
            for channel in 0..<channels { sums[channel] *= scale }
        }
    }

    /// input `[batch, pixels, channels]` → `[batch, channels]`.
    public static func forward(_ input: [Float], batch: Int, pixelCount: Int, channels: Int) -> [Float] {
        precondition(input.count == batch * pixelCount * channels, "GlobalAveragePool: input count")
        var output = [Float](repeating: 0, count: batch * channels)
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                forward(input: source.baseAddress!, batch: batch, pixelCount: pixelCount, channels: channels, output: destination.baseAddress!)
            }
        }
        return output
    }
}
