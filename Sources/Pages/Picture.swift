import Foundation
import ImageCodecs

/// A picture embedded in a page as a `data:` URI, so the page needs no other file.
public struct Picture: Sendable, Equatable {
    /// `data:image/…;base64,…`.
    public var dataURI: String
    /// Size in pixels.
    public var width: Int, height: Int

    /// Wraps encoded bytes of the given media type.
    public init(bytes: [UInt8], mediaType: String, width: Int, height: Int) {
        dataURI = "data:\(mediaType);base64," + Data(bytes).base64EncodedString()
        self.width = width
        self.height = height
    }

    /// A JPEG thumbnail (quality 82, full-resolution colour: thumbnails are small and often clip art with hard,
    /// saturated edges). `name` names the source in errors.
    public static func jpeg(_ image: RGBImage, name: String, quality: Int = 82) throws(ImageError) -> Picture {
        Picture(
            bytes: try JPEGEncoder.encode(image, quality: quality, fullChroma: true, name: name), mediaType: "image/jpeg",
            width: image.width, height: image.height)
    }

    /// A class-activation heat map as a small transparent PNG, `side × side` cells (row-major `values`), to be laid
    /// over a thumbnail and scaled up smoothly by the browser. Only positive evidence is shown: a cell's share of the
    /// largest value picks its viridis colour and its opacity (up to 0.75, so the picture stays visible); zero and
    /// negative cells are transparent. Nil when no cell is positive (nothing to show).
    public static func heatOverlay(values: [Float], side: Int, name: String) throws(ImageError) -> Picture? {
        precondition(side > 0 && values.count == side * side, "Picture.heatOverlay: values must be side × side")
        let largest = values.filter(\.isFinite).max() ?? 0
        guard largest > 0 else { return nil }
        var rgba = [UInt8](repeating: 0, count: side * side * 4)
        for (index, value) in values.enumerated() {
            let share = value.isFinite ? Double(max(0, value) / largest) : 0
            let color = ColorScale.viridis(share)
            rgba[index * 4] = color.red
            rgba[index * 4 + 1] = color.green
            rgba[index * 4 + 2] = color.blue
            rgba[index * 4 + 3] = UInt8((0.75 * share * 255).rounded())
        }
        return Picture(
            bytes: try PNGEncoder.encode(rgba: rgba, width: side, height: side, name: name), mediaType: "image/png",
            width: side, height: side)
    }
}
