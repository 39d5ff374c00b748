/// A decoded 8-bit RGB image.
///
/// Layout: row-major, interleaved `R, G, B`; pixel (x, y) starts at `(y * width + x) * 3`,
/// so `pixels.count == width * height * 3`.
public struct RGBImage: Sendable, Equatable {
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int
    /// Interleaved samples, `width * height * 3` of them.
    public var pixels: [UInt8]

    /// Wraps pixels already laid out as described on the type.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(
            width >= 0 && height >= 0 && pixels.count == width * height * 3,
            "RGBImage needs width * height * 3 samples")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The three samples of pixel (x, y).
    public subscript(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let start = (y * width + x) * 3
        return (pixels[start], pixels[start + 1], pixels[start + 2])
    }
}
