import FileFormats
import Foundation

/// How an image file becomes the network's input tensor: decoding (alpha composited onto `alphaBackground`),
/// centre crop, resize, channel order and normalisation. One versioned value, stored in every model file and read
/// back by everything that turns images into network inputs (features, train, classify, evaluate, label, exports).
///
/// The steps, in order:
/// 1. decode to 8-bit `channelOrder` pixels, EXIF orientation applied, transparent pixels composited onto
///    `alphaBackground`: `c' = (c·a + b·(255 − a) + 127) / 255` (integer division);
/// 2. centre crop a square of side `c = Int(inputSide / (inputSide + cropPadding) · min(H, W))` (`CenterCrop`);
/// 3. resize it to `inputSide × inputSide` with `resample` (`Resize.bicubic`, Pillow's antialiased bicubic);
/// 4. `x = (pixel − mean[channel]) / std[channel]`, giving `[inputSide, inputSide, 3]` floats (HWC).
///
/// `efficientNetLite0` is the only place these numbers are written. Stored as JSON with sorted keys
/// (`canonicalJSON`), for example
/// `{"alphaBackground":[255,255,255],"channelOrder":"RGB","cropPadding":32,"inputSide":224,"mean":[127,127,127],`
/// `"name":"tf_crop_pad32","resample":"bicubic-antialiased","std":[128,128,128],"version":1}`.
public struct ImagePreprocessing: Sendable, Equatable, Codable {
    /// Version of this description's layout and meaning; a reader refuses a version it does not know.
    public var version: Int
    /// Identifier of the recipe, e.g. "tf_crop_pad32" (TensorFlow's evaluation crop).
    public var name: String
    /// Side of the square network input in pixels.
    public var inputSide: Int
    /// The centre crop keeps `inputSide / (inputSide + cropPadding)` of the shorter side.
    public var cropPadding: Int
    /// Resampling filter of the resize, e.g. "bicubic-antialiased".
    public var resample: String
    /// Per-channel value subtracted from 0…255 pixels, in `channelOrder`.
    public var mean: [Float]
    /// Per-channel divisor applied after subtracting `mean`.
    public var std: [Float]
    /// Channel order of the input tensor, e.g. "RGB".
    public var channelOrder: String
    /// The colour transparent pixels are composited onto, 8-bit, in `channelOrder`.
    public var alphaBackground: [Int]

    /// Creates a description from every field; `efficientNetLite0` is the one Workbench uses.
    public init(
        version: Int, name: String, inputSide: Int, cropPadding: Int, resample: String, mean: [Float],
        std: [Float], channelOrder: String, alphaBackground: [Int]
    ) {
        self.version = version
        self.name = name
        self.inputSide = inputSide
        self.cropPadding = cropPadding
        self.resample = resample
        self.mean = mean
        self.std = std
        self.channelOrder = channelOrder
        self.alphaBackground = alphaBackground
    }

    /// The newest `version` this build understands.
    public static let currentVersion = 1

    /// EfficientNet-Lite0's reference preprocessing (TensorFlow's evaluation crop, `(x − 127) / 128`) with
    /// Workbench's white alpha background: the one recipe this build performs.
    public static let efficientNetLite0 = ImagePreprocessing(
        version: 1, name: "tf_crop_pad32", inputSide: 224, cropPadding: 32, resample: "bicubic-antialiased",
        mean: [127, 127, 127], std: [128, 128, 128], channelOrder: "RGB", alphaBackground: [255, 255, 255])

    /// The number of floats in one network input `[inputSide, inputSide, 3]`.
    public var inputCount: Int { inputSide * inputSide * 3 }

    /// The crop and resize that decoders do while decoding.
    public var cropAndResize: CropAndResize { CropAndResize(outputSide: inputSide, padding: cropPadding) }

    /// The centre crop of a `width × height` image.
    public func centerCrop(width: Int, height: Int) -> CenterCrop {
        CenterCrop(width: width, height: height, outputSide: inputSide, padding: cropPadding)
    }

    /// JSON with sorted keys: equal values give equal text. Model files store it and the feature cache key hashes it.
    public var canonicalJSON: String {
        // Strings, integers and finite floats always encode; `unsupportedField` has vetted a loaded value.
        (try? JSONWriter.text(self, layout: .sorted)) ?? "{}"
    }

    /// One line for people: "tf_crop_pad32 (version 1): 224×224 RGB, centre crop 224/256, bicubic-antialiased,
    /// (x − [127, 127, 127]) / [128, 128, 128], alpha onto (255, 255, 255)".
    public var summary: String {
        func number(_ value: Float) -> String { value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : "\(value)" }
        func list(_ values: [Float]) -> String { "[" + values.map(number).joined(separator: ", ") + "]" }
        let background = alphaBackground.map(String.init).joined(separator: ", ")
        return "\(name) (version \(version)): \(inputSide)×\(inputSide) \(channelOrder), "
            + "centre crop \(inputSide)/\(inputSide + cropPadding), \(resample), (x − \(list(mean))) / \(list(std)), "
            + "alpha onto (\(background))"
    }

    // MARK: - What this build can perform

    /// The first field whose value this build cannot perform, as "'field' is X; this build performs Y", or nil.
    ///
    /// - Parameter backboneInputSide: when given, `inputSide` must equal it (the network's fixed input size).
    public func unsupportedField(backboneInputSide: Int? = nil) -> String? {
        let supported = Self.efficientNetLite0
        if version != Self.currentVersion {
            return "'version' is \(version); this build reads preprocessing version \(Self.currentVersion)"
        }
        if name != supported.name { return "'name' is '\(name)'; this build performs only '\(supported.name)'" }
        if resample != supported.resample {
            return "'resample' is '\(resample)'; this build performs only '\(supported.resample)'"
        }
        if channelOrder != supported.channelOrder {
            return "'channelOrder' is '\(channelOrder)'; this build performs only '\(supported.channelOrder)'"
        }
        if alphaBackground != supported.alphaBackground {
            return "'alphaBackground' is \(alphaBackground); this build composites only onto \(supported.alphaBackground)"
        }
        if inputSide < 1 || inputSide > DecodeOptions.maximumSide {
            return "'inputSide' is \(inputSide), not between 1 and \(DecodeOptions.maximumSide)"
        }
        if let backboneInputSide, inputSide != backboneInputSide {
            return "'inputSide' is \(inputSide); the backbone takes \(backboneInputSide)"
        }
        if cropPadding < 0 || cropPadding > 16 * inputSide {
            return "'cropPadding' is \(cropPadding), not between 0 and \(16 * inputSide)"
        }
        if mean.count != 3 || !mean.allSatisfy(\.isFinite) { return "'mean' is \(mean), not 3 finite numbers" }
        if std.count != 3 || !std.allSatisfy({ $0.isFinite && $0 != 0 }) {
            return "'std' is \(std), not 3 finite non-zero numbers"
        }
        return nil
    }

    // MARK: - Doing it

    /// Decoding that does the crop and resize while decoding (`CropAndResize`), so only the crop's pixels are ever
    /// held; `networkInput(from:)` then takes the `inputSide × inputSide` result as it is. The result is the same as
    /// decoding the whole image and calling `networkInput(from:)` on it. Decoders may shrink (DCT scaling, box
    /// reduction) only while the crop keeps at least twice the input side.
    public func decodeOptions(maximumPixels: Int) -> DecodeOptions {
        DecodeOptions(maximumPixels: maximumPixels, minimumCropSide: 2 * inputSide, cropAndResize: cropAndResize)
    }

    /// Crops, resizes and normalises `image` into `destination` (`[inputSide, inputSide, 3]`, HWC for one image).
    /// An image that already is `inputSide × inputSide` (decoded with `decodeOptions`) is taken as cropped.
    public func networkInput(from image: RGBImage, into destination: UnsafeMutablePointer<Float>) {
        normalise(inputImage(from: image).pixels, into: destination)
    }

    /// The `inputSide × inputSide` 8-bit image the network input is normalised from: `image` cropped and resized,
    /// or `image` itself when it already is that size (decoded with `decodeOptions`). Test-time views start here.
    public func inputImage(from image: RGBImage) -> RGBImage {
        if image.width == inputSide && image.height == inputSide && image.pixels.count == inputCount { return image }
        return Resize.bicubic(image, crop: centerCrop(width: image.width, height: image.height), outputSide: inputSide)
    }

    /// Crops, resizes and normalises `image` into a new `[inputSide, inputSide, 3]` array.
    public func networkInput(from image: RGBImage) -> [Float] {
        [Float](unsafeUninitializedCapacity: inputCount) { buffer, initialised in
            networkInput(from: image, into: buffer.baseAddress!)
            initialised = inputCount
        }
    }

    /// `(pixel − mean[c]) / std[c]` for `inputSide² · 3` interleaved bytes. Multiplying by the reciprocal is what
    /// the golden tests were computed with; keep it so the numbers do not move.
    private func normalise(_ pixels: [UInt8], into destination: UnsafeMutablePointer<Float>) {
        precondition(pixels.count == inputCount, "ImagePreprocessing: expected an inputSide × inputSide RGB image")
        pixels.withUnsafeBufferPointer { source in normalise(count: inputCount, into: destination) { Float(source[$0]) } }
    }

    /// The same normalisation for pixel values already held as floats in 0…255 (an augmented view), `[inputSide,
    /// inputSide, 3]`: equal bytes give equal inputs.
    public func normalise(_ values: [Float], into destination: UnsafeMutablePointer<Float>) {
        precondition(values.count == inputCount, "ImagePreprocessing: expected inputSide × inputSide × 3 values")
        values.withUnsafeBufferPointer { source in normalise(count: inputCount, into: destination) { source[$0] } }
    }

    @inline(__always)
    private func normalise(count: Int, into destination: UnsafeMutablePointer<Float>, value: (Int) -> Float) {
        let means = (mean[0], mean[1], mean[2])
        let scales = (1 / std[0], 1 / std[1], 1 / std[2])
        var index = 0
        while index < count {
            destination[index] = (value(index) - means.0) * scales.0
            destination[index + 1] = (value(index + 1) - means.1) * scales.1
            destination[index + 2] = (value(index + 2) - means.2) * scales.2
            index += 3
        }
    }
}
