import CHEIFShim

/// HEIF decoding (HEIC, the photos of every iPhone) through libheif (the only Swift file that calls the HEIF
/// shim): the primary image, with the file's own transformations (rotation `irot`, mirroring `imir`, crop) applied
/// by libheif.
///
/// Those transformations are a HEIF picture's orientation, so its EXIF orientation tag is never applied on top (it
/// usually repeats them: applying both would turn the picture twice), whatever `appliesEXIFOrientation` says; the
/// header's size is already the displayed one. libheif reads only the parts of the file it needs; the picture is
/// decoded whole and reduced like a PNG's rows (`WholeImageReduction`).
enum HEIFDecoder {
    private static let errorCapacity = 256

    /// Decodes the primary image, checking the pixel limit from its header before the image buffer exists.
    static func decode(from source: CompressedSource, path: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        var header = heif_shim_header()
        var message = [CChar](repeating: 0, count: errorCapacity)
        let decoder = try open(source, path: path, header: &header, message: &message)
        defer { heif_shim_close(decoder) }
        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        return try WholeImageReduction.decode(width: width, height: height, orientation: .upright, options: options) {
            rgba throws(ImageError) in
            guard heif_shim_decode_rgba(decoder, rgba.baseAddress, rgba.count, &message, Int32(errorCapacity)) == 0 else {
                throw corrupt(path: path, message: message)
            }
        }
    }

    /// The primary image's size as displayed (its transformations applied), from the boxes alone.
    static func displayedSize(from source: CompressedSource, path: String, options: DecodeOptions) throws(ImageError) -> ImageSize {
        var header = heif_shim_header()
        var message = [CChar](repeating: 0, count: errorCapacity)
        let decoder = try open(source, path: path, header: &header, message: &message)
        defer { heif_shim_close(decoder) }
        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        return ImageSize(width: width, height: height)
    }

    private static func open(
        _ source: CompressedSource, path: String, header: inout heif_shim_header,
        message: inout [CChar]
    ) throws(ImageError) -> OpaquePointer {
        let opened: OpaquePointer?
        switch source {
        case .file(let descriptor):
            opened = heif_shim_open_file(descriptor, &header, &message, Int32(errorCapacity))
        case .memory(let bytes):
            opened = heif_shim_open_memory(bytes.baseAddress, bytes.count, &header, &message, Int32(errorCapacity))
        }
        guard let decoder = opened else { throw corrupt(path: path, message: message) }
        return decoder
    }

    private static func corrupt(path: String, message: [CChar]) -> ImageError {
        ImageError(path: path, reason: "truncated or corrupt HEIF data: \(WholeImageReduction.text(message))")
    }
}
