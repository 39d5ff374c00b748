import CJPEGShim

/// JPEG encoding through libjpeg (the only Swift file that calls the shim's encoder), for small pictures such as a
/// report's thumbnails.
public enum JPEGEncoder {
    private static let errorCapacity = 256

    /// The JPEG bytes of `image` at `quality` (1...100). `fullChroma` keeps colour at full resolution (4:4:4), which
    /// small, saturated pictures need; libjpeg's default halves it both ways. `name` names the picture in errors.
    public static func encode(
        _ image: RGBImage, quality: Int = 80, fullChroma: Bool = false,
        name: String
    ) throws(ImageError) -> [UInt8] {
        var message = [CChar](repeating: 0, count: errorCapacity)
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            jpeg_shim_encode(
                pixels.baseAddress, Int32(image.width), Int32(image.height), Int32(quality),
                fullChroma ? 1 : 0, &output, &size, &message, Int32(errorCapacity))
        }
        guard status == 0, let output else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ImageError(path: name, reason: "cannot encode as JPEG: \(text)")
        }
        defer { jpeg_shim_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
