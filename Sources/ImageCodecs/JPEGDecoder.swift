import CJPEGShim

/// JPEG decoding through libjpeg-turbo (the only Swift file that calls the JPEG shim).
///
/// The file streams through the shim 64 KB at a time; rows are decoded one by one and only the rows and columns
/// of the kept region (`DecodeRegion`) are stored.
enum JPEGDecoder {
    /// EXIF payloads are capped at one APP1 segment (64 KB) by the format.
    private static let exifCapacity = 65_536
    private static let errorCapacity = 256

    /// Where the compressed bytes come from.
    enum Source {
        /// An open file, read from its current offset.
        case file(descriptor: Int32)
        /// Bytes in memory, which must stay alive for the whole decode.
        case memory(UnsafeBufferPointer<UInt8>)
    }

    /// Decodes a JPEG: header first (pixel limit, DCT scale, orientation), then the rows at that scale, keeping
    /// the region the options ask for.
    static func decode(from source: Source, path: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        var header = jpeg_shim_header()
        var exif = [UInt8](repeating: 0, count: exifCapacity)
        var message = [CChar](repeating: 0, count: errorCapacity)
        let decoder = try open(source, path: path, header: &header, exif: &exif, message: &message)
        defer { jpeg_shim_close(decoder) }

        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        let numerator = DecodeScale.jpegScaleNumerator(width: width, height: height, options: options)
        // A progressive file holds its whole image in coefficients until the last row: shared with the other
        // decodes of the process (`DecoderMemoryBudget`), and refused by the shim above its limit.
        let reserved = DecoderMemoryBudget.shared.reserve(jpeg_shim_coefficient_buffer_bytes(decoder))
        defer { DecoderMemoryBudget.shared.release(reserved) }
        var outputWidth: Int32 = 0, outputHeight: Int32 = 0
        switch jpeg_shim_start(decoder, Int32(numerator), &outputWidth, &outputHeight, &message, Int32(errorCapacity)) {
        case 0: break
        case -2: throw ImageError(path: path, reason: text(message))
        default: throw corrupt(path: path, message: message)
        }
        // libjpeg's scaled size is ceil(W·M/8) × ceil(H·M/8).
        let scaledWidth = (width * numerator + 7) / 8
        let scaledHeight = (height * numerator + 7) / 8
        guard Int(outputWidth) == scaledWidth, Int(outputHeight) == scaledHeight else {
            throw ImageError(path: path, reason: "JPEG decoder returned an unexpected size")
        }
        let orientation = displayOrientation(header: header, exif: exif, options: options)
        let region = DecodeRegion(storedWidth: scaledWidth, storedHeight: scaledHeight, orientation: orientation, options: options)

        // Taken once the first kept row has decoded, so a header that promises what the data does not hold costs
        // one row. Later kept rows of a full-width region are decoded straight into place.
        var kept: [UInt8] = []
        let rowBytes = region.width * 3
        let decodesInPlace = region.width == scaledWidth
        var row = [UInt8](repeating: 0, count: scaledWidth * 3)
        for y in 0..<scaledHeight {
            let status: Int32
            if region.contains(row: y) && decodesInPlace && !kept.isEmpty {
                status = kept.withUnsafeMutableBufferPointer {
                    jpeg_shim_read_row(decoder, $0.baseAddress! + (y - region.top) * rowBytes, &message, Int32(errorCapacity))
                }
            } else {
                status = row.withUnsafeMutableBufferPointer {
                    jpeg_shim_read_row(decoder, $0.baseAddress!, &message, Int32(errorCapacity))
                }
                if status == 0 && region.contains(row: y) {
                    if kept.isEmpty { kept = [UInt8](repeating: 0, count: region.height * rowBytes) }
                    let start = region.left * 3
                    kept.replaceSubrange(
                        ((y - region.top) * rowBytes)..<((y - region.top + 1) * rowBytes),
                        with: row[start..<(start + rowBytes)])
                }
            }
            guard status == 0 else { throw corrupt(path: path, message: message) }
        }
        guard jpeg_shim_finish(decoder, &message, Int32(errorCapacity)) == 0 else {
            throw corrupt(path: path, message: message)
        }
        return region.finish(RGBImage(width: region.width, height: region.height, pixels: kept), orientation: orientation)
    }

    /// The size of the picture as displayed (EXIF orientation applied when the options ask for it), from the
    /// header alone: no pixel data is decoded. The pixel limits are checked as a decode would check them.
    static func displayedSize(from source: Source, path: String, options: DecodeOptions) throws(ImageError) -> ImageSize {
        var header = jpeg_shim_header()
        var exif = [UInt8](repeating: 0, count: exifCapacity)
        var message = [CChar](repeating: 0, count: errorCapacity)
        let decoder = try open(source, path: path, header: &header, exif: &exif, message: &message)
        defer { jpeg_shim_close(decoder) }
        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        let orientation = displayOrientation(header: header, exif: exif, options: options)
        return orientation.swapsAxes ? ImageSize(width: height, height: width) : ImageSize(width: width, height: height)
    }

    /// Opens a decoder on `source` and reads its header (and EXIF block) into `header` and `exif`: what a decode
    /// and a size query share. The caller closes it.
    private static func open(
        _ source: Source, path: String, header: inout jpeg_shim_header, exif: inout [UInt8],
        message: inout [CChar]
    ) throws(ImageError) -> OpaquePointer {
        let opened = exif.withUnsafeMutableBufferPointer { exifBuffer -> OpaquePointer? in
            switch source {
            case .file(let descriptor):
                return jpeg_shim_open_file(
                    descriptor, &header, exifBuffer.baseAddress, Int32(exifCapacity),
                    &message, Int32(errorCapacity))
            case .memory(let bytes):
                return jpeg_shim_open_memory(
                    bytes.baseAddress, bytes.count, &header, exifBuffer.baseAddress,
                    Int32(exifCapacity), &message, Int32(errorCapacity))
            }
        }
        guard let decoder = opened else { throw corrupt(path: path, message: message) }
        return decoder
    }

    /// The EXIF orientation the header carries, or upright when there is none or the options ignore it.
    private static func displayOrientation(header: jpeg_shim_header, exif: [UInt8], options: DecodeOptions) -> EXIFOrientation {
        options.appliesEXIFOrientation && header.exif_length > 0
            ? EXIFOrientation(tiff: Array(exif[0..<Int(header.exif_length)])) : .upright
    }

    private static func corrupt(path: String, message: [CChar]) -> ImageError {
        ImageError(path: path, reason: "truncated or corrupt JPEG data: \(text(message))")
    }

    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
