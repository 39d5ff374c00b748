/// The reference preprocessing's geometry, done by the decoder itself: the centre crop `CenterCrop(width:height:
/// outputSide:padding:)` of the decoded (scaled, upright) image, resized by `Resize.bicubic` to
/// `outputSide × outputSide`. An image whose decoded size already is `outputSide × outputSide` is kept as it is
/// (it is taken to be the network's input already).
///
/// Done while decoding, only the crop's pixels are ever kept: a header that claims a 1,000,000 × 299 image costs
/// one row and a 261 × 261 square, not 900 MB.
public struct CropAndResize: Sendable, Equatable {
    /// The side of the square result.
    public var outputSide: Int
    /// The crop keeps `outputSide / (outputSide + padding)` of the shorter side.
    public var padding: Int

    /// A crop-and-resize to `outputSide × outputSide`.
    public init(outputSide: Int, padding: Int) {
        precondition(outputSide > 0 && padding >= 0, "CropAndResize needs a positive output side")
        self.outputSide = outputSide
        self.padding = padding
    }
}

/// How far a decoder may go and how much it may shrink while decoding.
public struct DecodeOptions: Sendable {
    /// Images with more pixels than this are refused from their header, before any large allocation.
    public var maximumPixels: Int = 300_000_000
    /// When non-nil, decoders may shrink while decoding (JPEG DCT scaling, PNG box reduction by an integer
    /// factor), but only as far as the centre-crop side of the result (`cropAndResize`'s crop, or
    /// `ImagePreprocessing.efficientNetLite0`'s when there is none) stays at least this. `nil` decodes at full size.
    public var minimumCropSide: Int? = Self.defaultMinimumCropSide
    /// Whether the orientation (1–8) of a JPEG's or WebP's EXIF block, or of a TIFF's Orientation tag, is applied to
    /// the decoded pixels. A HEIC is always turned by its own `irot`/`imir` boxes (libheif applies them; they are
    /// its geometry, not metadata) and its EXIF orientation is never applied.
    public var appliesEXIFOrientation: Bool = true
    /// When non-nil, the decoder returns only this crop, resized; nil returns the whole (scaled) image.
    public var cropAndResize: CropAndResize?

    /// Wider or taller images are refused whatever their pixel count: a decoder holds a few rows at full width.
    public static let maximumSide = 1 << 20

    /// Twice the default recipe's input side: enough pixels left for the antialiased resize to average over.
    public static let defaultMinimumCropSide = 2 * ImagePreprocessing.efficientNetLite0.inputSide

    /// The crop whose side limits shrinking: `cropAndResize`, or the default recipe's when there is none.
    var shrinkingCrop: CropAndResize { cropAndResize ?? ImagePreprocessing.efficientNetLite0.cropAndResize }

    /// Options with the given limits; the defaults suit the default recipe's classifier input.
    public init(
        maximumPixels: Int = 300_000_000, minimumCropSide: Int? = Self.defaultMinimumCropSide,
        appliesEXIFOrientation: Bool = true, cropAndResize: CropAndResize? = nil
    ) {
        self.maximumPixels = maximumPixels
        self.minimumCropSide = minimumCropSide
        self.appliesEXIFOrientation = appliesEXIFOrientation
        self.cropAndResize = cropAndResize
    }

    /// Files larger than this are refused by their size, unread: more than any image within `maximumPixels` can
    /// take. That is 8 bytes a pixel (16-bit RGBA stored without compression, the largest PNG) plus 64 MiB for
    /// metadata (EXIF thumbnails, ICC profiles, XMP): 2.5 GB at 300 megapixels.
    public var maximumFileBytes: Int {
        let (pixelBytes, overflow) = maximumPixels.multipliedReportingOverflow(by: 8)
        return overflow ? Int.max : pixelBytes.addingReportingOverflow(64 << 20).overflow ? Int.max : pixelBytes + (64 << 20)
    }
}

/// How much a decoder may shrink, decided from the header alone.
enum DecodeScale {
    /// The crop side of `crop` for an image of this size.
    static func cropSide(width: Int, height: Int, crop: CropAndResize) -> Int {
        CenterCrop(width: width, height: height, outputSide: crop.outputSide, padding: crop.padding).side
    }

    /// The smallest DCT scale M/8 (M in 1...8) whose output `ceil(W·M/8) × ceil(H·M/8)` keeps the crop side at
    /// least `minimumCropSide`; 8 (no scaling) when none does or when shrinking is off.
    static func jpegScaleNumerator(width: Int, height: Int, options: DecodeOptions) -> Int {
        guard let minimumCropSide = options.minimumCropSide else { return 8 }
        for numerator in 1...8 {
            let scaledWidth = (width * numerator + 7) / 8
            let scaledHeight = (height * numerator + 7) / 8
            if cropSide(width: scaledWidth, height: scaledHeight, crop: options.shrinkingCrop) >= minimumCropSide {
                return numerator
            }
        }
        return 8
    }

    /// The largest integer factor f whose box-reduced size `floor(W/f) × floor(H/f)` keeps the crop side at least
    /// `minimumCropSide`; 1 when shrinking is off or the image is already small.
    static func boxReductionFactor(width: Int, height: Int, options: DecodeOptions) -> Int {
        guard let minimumCropSide = options.minimumCropSide, minimumCropSide > 0 else { return 1 }
        var factor = 1
        // The crop side only shrinks as f grows, so the first failure ends the search.
        while factor + 1 <= min(width, height),
            cropSide(width: width / (factor + 1), height: height / (factor + 1), crop: options.shrinkingCrop) >= minimumCropSide
        {
            factor += 1
        }
        return factor
    }

    /// Refuses an image over the pixel or side limit, with the numbers a person needs to understand why.
    static func checkPixelLimit(width: Int, height: Int, options: DecodeOptions, path: String) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw ImageError(path: path, reason: "image has no pixels (\(width)×\(height))")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > options.maximumPixels {
            let megapixels = overflow ? Int.max / 1_000_000 : pixels / 1_000_000
            throw ImageError(
                path: path,
                reason: "image is \(width)×\(height) (\(megapixels) megapixels), "
                    + "over the limit of \(options.maximumPixels / 1_000_000) megapixels")
        }
        if max(width, height) > DecodeOptions.maximumSide {
            throw ImageError(
                path: path,
                reason: "image is \(width)×\(height), wider or taller than the limit of "
                    + "\(DecodeOptions.maximumSide) pixels")
        }
    }
}
