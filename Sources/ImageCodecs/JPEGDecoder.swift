import CJPEGShim

/// JPEG decoding through libjpeg-turbo (the only Swift file that calls the JPEG shim).
enum JPEGDecoder {
    /// EXIF payloads are capped at one APP1 segment (64 KB) by the format.
    private static let exifCapacity = 65_536
    private static let errorCapacity = 256

    /// Decodes a JPEG: header first (pixel limit, DCT scale), then the pixels at that scale, then EXIF orientation.
    static func decode(bytes: [UInt8], path: String, options: DecodeOptions) throws(ImageError) -> RGBImage {
        var header = jpeg_shim_header()
        var exif = [UInt8](repeating: 0, count: exifCapacity)
        var message = [CChar](repeating: 0, count: errorCapacity)
        let probed = bytes.withUnsafeBufferPointer { data in
            exif.withUnsafeMutableBufferPointer { exifBuffer in
                jpeg_shim_probe(data.baseAddress, data.count, exifBuffer.baseAddress, Int32(exifCapacity),
                                &header, &message, Int32(errorCapacity))
            }
        }
        guard probed == 0 else { throw corrupt(path: path, message: message) }

        let width = Int(header.width), height = Int(header.height)
        try DecodeScale.checkPixelLimit(width: width, height: height, options: options, path: path)
        let numerator = DecodeScale.jpegScaleNumerator(width: width, height: height,
                                                        minimumCropSide: options.minimumCropSide)
        // libjpeg's scaled size is ceil(W·M/8) × ceil(H·M/8).
        let scaledWidth = (width * numerator + 7) / 8
        let scaledHeight = (height * numerator + 7) / 8
        var outputWidth: Int32 = 0, outputHeight: Int32 = 0
        var status: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: scaledWidth * scaledHeight * 3) { buffer, count in
            status = bytes.withUnsafeBufferPointer { data in
                jpeg_shim_decode(data.baseAddress, data.count, Int32(numerator), buffer.baseAddress, buffer.count,
                                 &outputWidth, &outputHeight, &message, Int32(errorCapacity))
            }
            // On failure the buffer may be partly written; it is thrown away below either way.
            count = buffer.count
            if status != 0 { buffer.initialize(repeating: 0) }
        }
        guard status == 0 else { throw corrupt(path: path, message: message) }
        guard Int(outputWidth) == scaledWidth, Int(outputHeight) == scaledHeight else {
            throw ImageError(path: path, reason: "JPEG decoder returned an unexpected size")
        }
        let image = RGBImage(width: scaledWidth, height: scaledHeight, pixels: pixels)
        guard options.appliesEXIFOrientation, header.exif_length > 0 else { return image }
        let orientation = EXIFOrientation(tiff: Array(exif[0..<Int(header.exif_length)]))
        return orientation.apply(to: image)
    }

    private static func corrupt(path: String, message: [CChar]) -> ImageError {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ImageError(path: path, reason: "truncated or corrupt JPEG data: \(text)")
    }
}
