import CPNGShim

/// PNG encoding through libpng (the only Swift file that calls the shim's encoder), for small pictures that need
/// exact colours or transparency, such as a report's heat-map overlays.
public enum PNGEncoder {
    private static let errorCapacity = 256

    /// The PNG bytes of an RGB image. `name` names the picture in errors.
    public static func encode(_ image: RGBImage, name: String) throws(ImageError) -> [UInt8] {
        try encode(pixels: image.pixels, width: image.width, height: image.height, channels: 3, name: name)
    }

    /// The PNG bytes of `width × height` RGBA pixels (row-major, interleaved, not premultiplied).
    public static func encode(rgba pixels: [UInt8], width: Int, height: Int, name: String) throws(ImageError) -> [UInt8] {
        try encode(pixels: pixels, width: width, height: height, channels: 4, name: name)
    }

    private static func encode(
        pixels: [UInt8], width: Int, height: Int, channels: Int,
        name: String
    ) throws(ImageError) -> [UInt8] {
        guard width > 0, height > 0, pixels.count == width * height * channels else {
            throw ImageError(path: name, reason: "cannot encode as PNG: \(pixels.count) samples for \(width)×\(height)×\(channels)")
        }
        var message = [CChar](repeating: 0, count: errorCapacity)
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = pixels.withUnsafeBufferPointer { buffer in
            png_shim_encode(
                buffer.baseAddress, Int32(width), Int32(height), Int32(channels), &output, &size,
                &message, Int32(errorCapacity))
        }
        guard status == 0, let output else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageError(path: name, reason: "cannot encode as PNG: \(text)")
        }
        defer { png_shim_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}
