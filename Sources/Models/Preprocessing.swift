import ImageCodecs

/// The reference preprocessing of EfficientNet-Lite0 (see the reference README, "Preprocessing"):
/// centre crop of side `Int(224/256 · min(H, W))`, antialiased bicubic resize to 224 × 224, then
/// `x = (pixel − 127) / 128` per channel, RGB order.
public enum Preprocessing {
    /// The side of the network's square input.
    public static let inputSide = 224
    /// The crop padding of the TF evaluation crop: the crop keeps 224 / (224 + 32) of the shorter side.
    public static let cropPadding = 32
    /// Per-channel mean and standard deviation of the normalisation.
    public static let mean: Float = 127
    public static let standardDeviation: Float = 128
    /// A stable identifier of this preprocessing, for caches and model files.
    public static let identifier = "tf_crop_pad32-bicubic-aa-224-mean127-std128-rgb"

    /// The number of floats in one network input `[224, 224, 3]`.
    public static let inputCount = inputSide * inputSide * 3

    /// Decoding that does this preprocessing's crop and resize while decoding (`CropAndResize`), so only the
    /// crop's pixels are ever held: `networkInput(from:)` then takes the 224 × 224 result as it is. The result is
    /// the same as decoding the whole image and calling `networkInput(from:)` on it.
    public static func decodeOptions(maximumPixels: Int) -> DecodeOptions {
        DecodeOptions(maximumPixels: maximumPixels, cropAndResize: CropAndResize(outputSide: inputSide, padding: cropPadding))
    }

    /// Crops, resizes and normalises `image` into `destination` (`[224, 224, 3]`, NHWC for one image).
    public static func networkInput(from image: RGBImage, into destination: UnsafeMutablePointer<Float>) {
        let square: RGBImage
        if image.width == inputSide && image.height == inputSide && image.pixels.count == inputCount {
            // Already the network's input (a golden 224 image, a video frame scaled by ffmpeg): no second crop.
            square = image
        } else {
            let crop = CenterCrop(width: image.width, height: image.height, outputSide: inputSide, padding: cropPadding)
            square = Resize.bicubic(image, crop: crop, outputSide: inputSide)
        }
        normalise(square.pixels, into: destination)
    }

    /// Crops, resizes and normalises `image` into a new `[224, 224, 3]` array.
    public static func networkInput(from image: RGBImage) -> [Float] {
        [Float](unsafeUninitializedCapacity: inputCount) { buffer, initialised in
            networkInput(from: image, into: buffer.baseAddress!)
            initialised = inputCount
        }
    }

    /// `(pixel − 127) / 128` for 224 · 224 · 3 interleaved RGB bytes.
    static func normalise(_ pixels: [UInt8], into destination: UnsafeMutablePointer<Float>) {
        precondition(pixels.count == inputCount, "Preprocessing: expected a 224 × 224 RGB image")
        let scale = 1 / standardDeviation
        pixels.withUnsafeBufferPointer { source in
            for index in 0..<inputCount {
                destination[index] = (Float(source[index]) - mean) * scale
            }
        }
    }
}
