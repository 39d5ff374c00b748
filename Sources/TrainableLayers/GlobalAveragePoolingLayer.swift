/// The mean of each channel over all pixels: the 1280-d features of EfficientNet-Lite0.
///
/// Shapes: input `[batch, height, width, channels]` → output `[batch, channels]`. Backward: every pixel of a
/// channel receives `∂Y[n, c] / (height·width)`. The cache is the input's shape alone.
public struct GlobalAveragePoolingLayer<Scalar: BinaryFloatingPoint & Sendable>: Sendable {
    /// The layer (it has no parameters).
    public init() {}

    /// What the backward pass reads: the input's shape.
    public struct Cache: Sendable {
        /// `[batch, height, width, channels]` of the forward pass's input.
        public let inputShape: [Int]
        /// A cache holding `inputShape`.
        public init(inputShape: [Int]) { self.inputShape = inputShape }
    }

    /// The naive reference forward pass (double-precision sums).
    public func referenceForward(_ input: Tensor<Scalar>, mode: ForwardMode) -> (output: Tensor<Scalar>, cache: Cache?) {
        let (batch, height, width, channels) = input.nhwc
        let pixels = height * width
        var output = Tensor<Scalar>(shape: [batch, channels])
        for n in 0..<batch {
            for channel in 0..<channels {
                var sum = 0.0
                for pixel in 0..<pixels { sum += Double(input.storage[(n * pixels + pixel) * channels + channel]) }
                output.storage[n * channels + channel] = Scalar(sum / Double(pixels))
            }
        }
        return (output, mode == .training ? Cache(inputShape: input.shape) : nil)
    }

    /// The backward pass (the same for reference and fast): `∂Y / pixels` spread over the pixels.
    public func backward(_ outputGradient: Tensor<Scalar>, cache: Cache) -> Tensor<Scalar> {
        let (batch, height, width, channels) = (cache.inputShape[0], cache.inputShape[1], cache.inputShape[2], cache.inputShape[3])
        precondition(outputGradient.shape == [batch, channels], "GlobalAveragePoolingLayer: gradient shape")
        let pixels = height * width, scale = 1 / Scalar(pixels)
        return Tensor(shape: cache.inputShape) { inputGradient in
            outputGradient.withUnsafeBufferPointer { gradient in
                for n in 0..<batch {
                    for pixel in 0..<pixels {
                        let row = inputGradient.baseAddress! + (n * pixels + pixel) * channels
                        for channel in 0..<channels { row[channel] = gradient[n * channels + channel] * scale }
                    }
                }
            }
        }
    }
}

extension GlobalAveragePoolingLayer where Scalar == Float {
    /// The fast forward pass: per image, channel-contiguous sums over the pixels (vectorised), then one scale.
    public func forward(_ input: Tensor<Float>, mode: ForwardMode) -> (output: Tensor<Float>, cache: Cache?) {
        let (batch, height, width, channels) = input.nhwc
        let pixels = height * width
        precondition(pixels > 0, "GlobalAveragePoolingLayer: no pixels")
        let output = Tensor<Float>(shape: [batch, channels]) { output in
            input.withUnsafeBufferPointer { input in
                for n in 0..<batch {
                    let sums = output.baseAddress! + n * channels
                    sums.update(repeating: 0, count: channels)
                    for pixel in 0..<pixels {
                        let row = input.baseAddress! + (n * pixels + pixel) * channels
                        for channel in 0..<channels { sums[channel] += row[channel] }
                    }
                    let scale = 1 / Float(pixels)
                    for channel in 0..<channels { sums[channel] *= scale }
                }
            }
        }
        return (output, mode == .training ? Cache(inputShape: input.shape) : nil)
    }
}
