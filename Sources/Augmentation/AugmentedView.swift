import ImageCodecs

/// The random choices of one view of one image: everything a view depends on besides the source pixels.
public struct ViewParameters: Sendable, Equatable {
    /// The random resized crop's rectangle; nil is the model's centre crop.
    public var crop: PixelRegion?
    /// Whether the view is mirrored left–right.
    public var flipped: Bool
    /// Counter-clockwise rotation in degrees (0 is none).
    public var rotationDegrees: Double
    /// Exposure change in stops (0 is none).
    public var exposureStops: Double
    /// Contrast factor (1 is none).
    public var contrast: Double
    /// Blur standard deviation in pixels (0 is none).
    public var blurSigma: Double
    /// Noise standard deviation in levels (0 is none).
    public var noiseStandardDeviation: Double

    /// Draws the choices of view (`seed`, `epoch`, `image`) of a `width × height` source. Each transform draws
    /// from its own stream, so turning one transform on or off leaves the others' choices as they were.
    public init(policy: AugmentationPolicy, seed: UInt64, epoch: Int, image: Int, width: Int, height: Int) {
        func stream(_ transform: AugmentationPolicy.Transform) -> AugmentationRandom {
            AugmentationRandom(seed: seed, epoch: epoch, image: image, transform: transform)
        }
        if let crop = policy.crop {
            var random = stream(.crop)
            self.crop = RandomResizedCrop.rectangle(width: width, height: height, crop: crop, random: &random).region
        } else {
            self.crop = nil
        }
        var flipRandom = stream(.flip)
        flipped = policy.flip && flipRandom.unit() < 0.5
        if let maximum = policy.maximumRotationDegrees {
            var random = stream(.rotate)
            rotationDegrees = random.uniform(-maximum, maximum)
        } else {
            rotationDegrees = 0
        }
        if let color = policy.color {
            var random = stream(.color)
            exposureStops = random.uniform(-color.maximumStops, color.maximumStops)
            contrast = random.uniform(1 - color.maximumContrastChange, 1 + color.maximumContrastChange)
        } else {
            exposureStops = 0
            contrast = 1
        }
        blurSigma = 0
        if let blur = policy.blur {
            var random = stream(.blur)
            if random.unit() < blur.probability {
                // (0, maximum]: a zero σ would be no blur at all.
                blurSigma = blur.maximumSigma * (1 - random.unit())
            }
        }
        noiseStandardDeviation = 0
        if let noise = policy.noise {
            var random = stream(.noise)
            if random.unit() < noise.probability {
                noiseStandardDeviation = noise.maximumStandardDeviation * (1 - random.unit())
            }
        }
    }
}

/// Makes one view: crop and resize (the model's own resampler, `Resize.bicubic`), flip, rotate, colour, blur,
/// noise, then the model's normalisation `(v − mean) / std` (`ImagePreprocessing`).
public enum AugmentedView {
    /// Writes the network input `[inputSide, inputSide, 3]` of view (`seed`, `epoch`, `image`) of `source` to
    /// `destination`. With `AugmentationPolicy.none` this is `preprocessing.networkInput(from: source)` exactly.
    public static func render(
        _ source: RGBImage, policy: AugmentationPolicy, seed: UInt64, epoch: Int, image: Int,
        preprocessing: ImagePreprocessing = .efficientNetLite0, into destination: UnsafeMutablePointer<Float>
    ) {
        let parameters = ViewParameters(
            policy: policy, seed: seed, epoch: epoch, image: image,
            width: source.width, height: source.height)
        render(
            source, parameters: parameters,
            noiseRandom: AugmentationRandom(
                seed: seed, epoch: epoch, image: image, transform: .noise,
                substream: 1),
            preprocessing: preprocessing, into: destination)
    }

    /// Writes the view with the given choices; `noiseRandom` supplies the noise samples (a stream of its own, apart
    /// from the one that chose their strength). `preprocessing` gives the input side, the centre crop and the
    /// normalisation (the model's; the pretrained backbone's by default).
    public static func render(
        _ source: RGBImage, parameters: ViewParameters, noiseRandom: AugmentationRandom,
        preprocessing: ImagePreprocessing = .efficientNetLite0, into destination: UnsafeMutablePointer<Float>
    ) {
        let side = preprocessing.inputSide
        let square: RGBImage
        if let region = parameters.crop {
            square = Resize.bicubic(source, region: region, outputWidth: side, outputHeight: side)
        } else if source.width == side && source.height == side {
            // As the model's preprocessing does: a 224 × 224 image is taken to be the input already.
            square = source
        } else {
            square = Resize.bicubic(
                source, crop: preprocessing.centerCrop(width: source.width, height: source.height),
                outputSide: side)
        }
        var pixels = square.pixels.map { Float($0) }
        if parameters.flipped { PixelTransforms.flipHorizontally(&pixels, side: side) }
        if parameters.rotationDegrees != 0 {
            pixels = PixelTransforms.rotate(pixels, side: side, degrees: parameters.rotationDegrees)
        }
        if parameters.exposureStops != 0 || parameters.contrast != 1 {
            PixelTransforms.adjustColor(&pixels, stops: parameters.exposureStops, contrast: parameters.contrast)
        }
        if parameters.blurSigma > 0 { pixels = PixelTransforms.blur(pixels, side: side, sigma: parameters.blurSigma) }
        if parameters.noiseStandardDeviation > 0 {
            var random = noiseRandom
            PixelTransforms.addNoise(&pixels, standardDeviation: parameters.noiseStandardDeviation, random: &random)
        }
        preprocessing.normalise(pixels, into: destination)
    }
}
