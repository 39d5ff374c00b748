/// How far a decoder may go and how much it may shrink while decoding.
public struct DecodeOptions: Sendable {
    /// Images with more pixels than this are refused from their header, before any large allocation.
    public var maximumPixels: Int = 300_000_000
    /// When non-nil, decoders may shrink while decoding (JPEG DCT scaling, PNG box reduction by an integer
    /// factor), but only as far as the centre-crop side `Int(224.0/256.0 * Double(min(w, h)))` of the result
    /// stays at least this. `nil` decodes at full size.
    public var minimumCropSide: Int? = 448
    /// Whether a JPEG's EXIF orientation tag (1–8) is applied to the decoded pixels.
    public var appliesEXIFOrientation: Bool = true

    /// Options with the given limits; the defaults suit the 224-pixel classifier input.
    public init(maximumPixels: Int = 300_000_000, minimumCropSide: Int? = 448, appliesEXIFOrientation: Bool = true) {
        self.maximumPixels = maximumPixels
        self.minimumCropSide = minimumCropSide
        self.appliesEXIFOrientation = appliesEXIFOrientation
    }
}

/// How much a decoder may shrink, decided from the header alone.
enum DecodeScale {
    /// The reference crop side for an image of this size.
    static func cropSide(width: Int, height: Int) -> Int {
        CenterCrop(width: width, height: height).side
    }

    /// The smallest DCT scale M/8 (M in 1...8) whose output `ceil(W·M/8) × ceil(H·M/8)` keeps the crop side at
    /// least `minimumCropSide`; 8 (no scaling) when none does or when shrinking is off.
    static func jpegScaleNumerator(width: Int, height: Int, minimumCropSide: Int?) -> Int {
        guard let minimumCropSide else { return 8 }
        for numerator in 1...8 {
            let scaledWidth = (width * numerator + 7) / 8
            let scaledHeight = (height * numerator + 7) / 8
            if cropSide(width: scaledWidth, height: scaledHeight) >= minimumCropSide { return numerator }
        }
        return 8
    }

    /// The largest integer factor f whose box-reduced size `floor(W/f) × floor(H/f)` keeps the crop side at least
    /// `minimumCropSide`; 1 when shrinking is off or the image is already small.
    static func boxReductionFactor(width: Int, height: Int, minimumCropSide: Int?) -> Int {
        guard let minimumCropSide, minimumCropSide > 0 else { return 1 }
        var factor = 1
        // The crop side only shrinks as f grows, so the first failure ends the search.
        while factor + 1 <= min(width, height),
              cropSide(width: width / (factor + 1), height: height / (factor + 1)) >= minimumCropSide {
            factor += 1
        }
        return factor
    }

    /// Refuses an image over the pixel limit, with the numbers a person needs to understand why.
    static func checkPixelLimit(width: Int, height: Int, options: DecodeOptions, path: String) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw ImageError(path: path, reason: "image has no pixels (\(width)×\(height))")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > options.maximumPixels {
            let megapixels = overflow ? Int.max / 1_000_000 : pixels / 1_000_000
            throw ImageError(path: path, reason: "image is \(width)×\(height) (\(megapixels) megapixels), "
                             + "over the limit of \(options.maximumPixels / 1_000_000) megapixels")
        }
    }
}
