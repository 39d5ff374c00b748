/// A rectangle's outline drawn into an image's pixels: the frames around detected objects on the small pictures
/// of a page (the full-size annotated copies are drawn by ffmpeg, with their labels).
public struct RectangleOutline: Sendable, Equatable {
    /// The rectangle, in pixels; it may reach past the image, whose edges then clip it.
    public var region: PixelRegion
    /// Line width in pixels, drawn inside the rectangle.
    public var thickness: Int
    /// The line's colour.
    public var red: UInt8, green: UInt8, blue: UInt8

    /// An outline of `region`, `thickness` pixels wide, in the given colour.
    public init(region: PixelRegion, thickness: Int, red: UInt8, green: UInt8, blue: UInt8) {
        self.region = region
        self.thickness = thickness
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Paints the outline into `image`: every pixel inside the rectangle and less than `thickness` pixels from
    /// one of its edges.
    public func draw(on image: inout RGBImage) {
        let left = max(0, region.left), top = max(0, region.top)
        let right = min(image.width, region.left + region.width), bottom = min(image.height, region.top + region.height)
        guard right > left, bottom > top, thickness > 0 else { return }
        let innerLeft = region.left + thickness, innerRight = region.left + region.width - thickness
        let innerTop = region.top + thickness, innerBottom = region.top + region.height - thickness
        let width = image.width
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            for y in top..<bottom {
                let rowIsEdge = y < innerTop || y >= innerBottom
                for x in left..<right where rowIsEdge || x < innerLeft || x >= innerRight {
                    let index = (y * width + x) * 3
                    pixels[index] = red
                    pixels[index + 1] = green
                    pixels[index + 2] = blue
                }
            }
        }
    }
}
