import CGIFShim

/// GIF decoding through giflib (the only Swift file that calls the GIF shim): the first frame on its canvas, the
/// transparent colour and the canvas the frame leaves uncovered composited onto white. An animation's later frames
/// are never read.
///
/// The file streams through the shim 64 KB at a time; the canvas is decoded whole and reduced like a PNG's rows
/// (`WholeImageReduction`).
enum GIFDecoder {
    private static let errorCapacity = 256

    /// Decodes the first frame, checking the pixel limit from the screen descriptor before the canvas exists.
    static func decode(from source: CompressedSource, path: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        var header = gif_shim_header()
        var message = [CChar](repeating: 0, count: errorCapacity)
        let decoder = try open(source, path: path, header: &header, message: &message)
        defer { gif_shim_close(decoder) }
        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        return try WholeImageReduction.decode(width: width, height: height, orientation: .upright, options: options) {
            rgba throws(ImageError) in
            guard gif_shim_decode_first_frame(decoder, rgba.baseAddress, rgba.count, &message, Int32(errorCapacity)) == 0 else {
                throw corrupt(path: path, message: message)
            }
        }
    }

    /// The canvas size, from the screen descriptor alone (GIF has no orientation).
    static func displayedSize(from source: CompressedSource, path: String, options: DecodeOptions) throws(ImageError) -> ImageSize {
        var header = gif_shim_header()
        var message = [CChar](repeating: 0, count: errorCapacity)
        let decoder = try open(source, path: path, header: &header, message: &message)
        defer { gif_shim_close(decoder) }
        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        return ImageSize(width: width, height: height)
    }

    private static func open(
        _ source: CompressedSource, path: String, header: inout gif_shim_header,
        message: inout [CChar]
    ) throws(ImageError) -> OpaquePointer {
        let opened: OpaquePointer?
        switch source {
        case .file(let descriptor):
            opened = gif_shim_open_file(descriptor, &header, &message, Int32(errorCapacity))
        case .memory(let bytes):
            opened = gif_shim_open_memory(bytes.baseAddress, bytes.count, &header, &message, Int32(errorCapacity))
        }
        guard let decoder = opened else { throw corrupt(path: path, message: message) }
        return decoder
    }

    private static func corrupt(path: String, message: [CChar]) -> ImageError {
        ImageError(path: path, reason: "truncated or corrupt GIF data: \(WholeImageReduction.text(message))")
    }
}
