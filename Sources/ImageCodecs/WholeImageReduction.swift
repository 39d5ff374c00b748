/// Where a decoder's compressed bytes come from (the decoders of the formats added after JPEG and PNG share it).
enum CompressedSource {
    /// An open file, read from its current offset (libheif and libtiff read it with `pread`, from its start).
    case file(descriptor: Int32)
    /// Bytes in memory, which must stay alive for the whole decode.
    case memory(UnsafeBufferPointer<UInt8>)
}

/// What the whole-image decoders (WebP, HEIF, TIFF, GIF) share: their library hands over the whole picture as
/// RGBA, which is then composited onto white, box-reduced and cut to the kept region exactly as a PNG's rows are
/// (`RegionReducer`), and turned upright (`DecodeRegion.finish`).
///
/// The RGBA buffer is `width × height × 4` bytes, allocated only after the caller checked the header against the
/// pixel limit (`DecodeScale.checkPixelLimit`), and reserved from `DecoderMemoryBudget`, which whole-image buffers
/// share with a progressive JPEG's coefficients: one larger than the budget takes all of it and decodes alone.
enum WholeImageReduction {
    /// Allocates the RGBA buffer for a `width × height` image (stored orientation), lets `fill` decode into it,
    /// then reduces it as the options ask and turns it upright by `orientation`.
    static func decode(
        width: Int, height: Int, orientation: EXIFOrientation, options: DecodeOptions,
        fill: (UnsafeMutableBufferPointer<UInt8>) throws(ImageError) -> Void
    ) throws(ImageError) -> RGBImage {
        let byteCount = width * height * 4
        let reserved = DecoderMemoryBudget.shared.reserve(byteCount)
        defer { DecoderMemoryBudget.shared.release(reserved) }
        var rgba = [UInt8](repeating: 0, count: byteCount)
        try rgba.withUnsafeMutableBufferPointer { (buffer: inout UnsafeMutableBufferPointer<UInt8>) throws(ImageError) in
            try fill(buffer)
        }
        return reduce(rgba: rgba, width: width, height: height, orientation: orientation, options: options)
    }

    /// The decoded RGBA pixels (`width × height`, stored orientation, alpha not premultiplied) as the loader
    /// returns them: over white, reduced, cut and upright.
    static func reduce(
        rgba: [UInt8], width: Int, height: Int, orientation: EXIFOrientation,
        options: DecodeOptions
    ) -> RGBImage {
        precondition(rgba.count == width * height * 4, "reduce needs width * height * 4 samples")
        let factor = DecodeScale.boxReductionFactor(width: width, height: height, options: options)
        let region = DecodeRegion(
            storedWidth: width / factor, storedHeight: height / factor, orientation: orientation,
            options: options)
        var reducer = RegionReducer(factor: factor, region: region)
        rgba.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                reducer.add(rgbaRow: pixels.baseAddress! + y * width * 4, y: y, firstColumn: 0, columnStep: 1)
            }
        }
        return region.finish(reducer.image, orientation: orientation)
    }

    /// The C string a shim wrote into `message`.
    static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
