import CTIFFShim

/// TIFF decoding through libtiff (the only Swift file that calls the TIFF shim): the first page, in any layout
/// libtiff's RGBA interface reads (greyscale, palette, RGB, YCbCr, CMYK, 1 to 16 bits), turned upright by its
/// Orientation tag, whose values mean what EXIF's do.
///
/// libtiff reads only the strips or tiles it needs; the page is decoded whole and reduced like a PNG's rows
/// (`WholeImageReduction`), transparent pixels composited onto white by the shim.
enum TIFFDecoder {
    private static let errorCapacity = 256

    /// Decodes the first page, checking the pixel limit from its header before the image buffer exists.
    static func decode(from source: CompressedSource, path: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        var header = tiff_shim_header()
        var message = [CChar](repeating: 0, count: errorCapacity)
        let reader = try open(source, path: path, header: &header, message: &message)
        defer { tiff_shim_close(reader) }
        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        return try WholeImageReduction.decode(
            width: width, height: height, orientation: orientation(header, options),
            options: options
        ) { rgba throws(ImageError) in
            guard tiff_shim_read_rgba(reader, rgba.baseAddress, rgba.count, &message, Int32(errorCapacity)) == 0 else {
                throw corrupt(path: path, message: message)
            }
        }
    }

    /// The first page's size as displayed (its orientation applied when the options ask), from the header alone.
    static func displayedSize(from source: CompressedSource, path: String, options: DecodeOptions) throws(ImageError) -> ImageSize {
        var header = tiff_shim_header()
        var message = [CChar](repeating: 0, count: errorCapacity)
        let reader = try open(source, path: path, header: &header, message: &message)
        defer { tiff_shim_close(reader) }
        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        return orientation(header, options).swapsAxes
            ? ImageSize(width: height, height: width)
            : ImageSize(width: width, height: height)
    }

    private static func orientation(_ header: tiff_shim_header, _ options: DecodeOptions) -> EXIFOrientation {
        options.appliesEXIFOrientation ? EXIFOrientation(rawValue: Int(header.orientation)) ?? .upright : .upright
    }

    private static func open(
        _ source: CompressedSource, path: String, header: inout tiff_shim_header,
        message: inout [CChar]
    ) throws(ImageError) -> OpaquePointer {
        let opened: OpaquePointer?
        switch source {
        case .file(let descriptor):
            opened = tiff_shim_open_file(descriptor, &header, &message, Int32(errorCapacity))
        case .memory(let bytes):
            opened = tiff_shim_open_memory(bytes.baseAddress, bytes.count, &header, &message, Int32(errorCapacity))
        }
        guard let reader = opened else { throw corrupt(path: path, message: message) }
        return reader
    }

    private static func corrupt(path: String, message: [CChar]) -> ImageError {
        ImageError(path: path, reason: "truncated or corrupt TIFF data: \(WholeImageReduction.text(message))")
    }
}
