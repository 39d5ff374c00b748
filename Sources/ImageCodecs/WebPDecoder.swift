import CWebPShim

/// WebP decoding through libwebp (the only Swift file that calls the WebP shim): lossy, lossless, with alpha, and an
/// animation's first frame, with the EXIF chunk's orientation.
///
/// libwebp decodes from memory, so the shim holds the compressed file whole (at most `maximumFileBytes`, which the
/// loader has checked already); the picture is then decoded whole and reduced like a PNG's rows
/// (`WholeImageReduction`).
enum WebPDecoder {
    /// An EXIF chunk beyond this is cut; the orientation tag sits in the first directory, near its start.
    private static let exifCapacity = 65_536
    private static let errorCapacity = 256

    /// Decodes a WebP file, checking the pixel limit from its headers before the image buffer exists.
    static func decode(from source: CompressedSource, path: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        var message = [CChar](repeating: 0, count: errorCapacity)
        let file = try open(source, path: path, options: options, message: &message)
        defer { webp_shim_close(file.decoder) }
        return try WholeImageReduction.decode(width: file.width, height: file.height, orientation: file.orientation, options: options) {
            rgba throws(ImageError) in
            guard webp_shim_decode_rgba(file.decoder, rgba.baseAddress, rgba.count, &message, Int32(errorCapacity)) == 0 else {
                throw corrupt(path: path, message: message)
            }
        }
    }

    /// The size as displayed (EXIF orientation applied when the options ask), from the headers alone.
    static func displayedSize(from source: CompressedSource, path: String, options: DecodeOptions) throws(ImageError) -> ImageSize {
        var message = [CChar](repeating: 0, count: errorCapacity)
        let file = try open(source, path: path, options: options, message: &message)
        defer { webp_shim_close(file.decoder) }
        return file.orientation.swapsAxes ? ImageSize(width: file.height, height: file.width) : ImageSize(width: file.width, height: file.height)
    }

    /// An opened file: the shim's decoder (to close), the stored size and how the picture is displayed.
    private struct OpenedFile {
        let decoder: OpaquePointer
        let width: Int, height: Int
        let orientation: EXIFOrientation
    }

    /// Opens the file and reads its headers, checking the stored size against the pixel limit before any pixel
    /// buffer exists; what `decode` and `displayedSize` share. The caller closes the decoder.
    private static func open(
        _ source: CompressedSource, path: String, options: DecodeOptions,
        message: inout [CChar]
    ) throws(ImageError) -> OpenedFile {
        var header = webp_shim_header()
        var exif = [UInt8](repeating: 0, count: exifCapacity)
        let opened = exif.withUnsafeMutableBufferPointer { exifBuffer -> OpaquePointer? in
            switch source {
            case .file(let descriptor):
                return webp_shim_open_file(
                    descriptor, options.maximumFileBytes, &header, exifBuffer.baseAddress,
                    Int32(exifCapacity), &message, Int32(errorCapacity))
            case .memory(let bytes):
                return webp_shim_open_memory(
                    bytes.baseAddress, bytes.count, &header, exifBuffer.baseAddress,
                    Int32(exifCapacity), &message, Int32(errorCapacity))
            }
        }
        guard let decoder = opened else { throw corrupt(path: path, message: message) }
        let width = Int(header.width), height = Int(header.height)
        do {
            try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        } catch {
            webp_shim_close(decoder)
            throw error
        }
        return OpenedFile(
            decoder: decoder, width: width, height: height,
            orientation: displayOrientation(header: header, exif: exif, options: options))
    }

    private static func displayOrientation(header: webp_shim_header, exif: [UInt8], options: DecodeOptions) -> EXIFOrientation {
        options.appliesEXIFOrientation && header.exif_length > 0
            ? EXIFOrientation(tiff: Array(exif[0..<Int(header.exif_length)])) : .upright
    }

    private static func corrupt(path: String, message: [CChar]) -> ImageError {
        ImageError(path: path, reason: "truncated or corrupt WebP data: \(WholeImageReduction.text(message))")
    }
}
