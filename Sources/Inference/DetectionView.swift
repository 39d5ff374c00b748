import ImageCodecs

/// One view of a picture that the detector's maps are computed on: a rectangle of the picture, given as fractions
/// of its width and height, resized (stretched, aspect not kept, as the person detector's input is) to the
/// detector's input square, and mirrored left to right when `mirrored`.
///
/// The plain view is the whole picture. Training adds mirrored and cropped views (the boxes follow through
/// `boxTransform`); each view's maps are cached under its description, so a view is computed once.
public struct DetectionView: Sendable, Hashable, Codable {
    /// Left edge, as a fraction of the picture's width (0…1).
    public var left: Double
    /// Top edge, as a fraction of the picture's height.
    public var top: Double
    /// Width, as a fraction of the picture's width (> 0).
    public var width: Double
    /// Height, as a fraction of the picture's height (> 0).
    public var height: Double
    /// Whether the view is mirrored left to right after the resize.
    public var mirrored: Bool

    /// A view from its parts; the rectangle must lie within 0…1 on both axes (the caller's own numbers).
    public init(left: Double, top: Double, width: Double, height: Double, mirrored: Bool) {
        precondition(
            left >= 0 && top >= 0 && width > 0 && height > 0 && left + width <= 1 + 1e-12 && top + height <= 1 + 1e-12,
            "DetectionView: the rectangle must lie within the picture")
        (self.left, self.top, self.width, self.height, self.mirrored) = (left, top, width, height, mirrored)
    }

    /// The whole picture, not mirrored: what `detect` sees.
    public static let whole = DetectionView(left: 0, top: 0, width: 1, height: 1, mirrored: false)
    /// The whole picture mirrored left to right: training's second view, and `--tta`'s.
    public static let mirror = DetectionView(left: 0, top: 0, width: 1, height: 1, mirrored: true)

    /// The views a trained detector answers on: the whole picture, then with `mirror` (`--tta`) its mirror.
    public static func answering(mirror: Bool) -> [DetectionView] { mirror ? [.whole, .mirror] : [.whole] }

    /// The view's rectangle in whole pixels of a `pictureWidth × pictureHeight` picture (edges rounded to the nearest
    /// pixel, at least one pixel a side). Rendering and the box transform both go through it, so boxes move exactly
    /// as the pixels do.
    public func pixelRegion(pictureWidth: Int, pictureHeight: Int) -> PixelRegion {
        func span(_ start: Double, _ length: Double, _ size: Int) -> (Int, Int) {
            let first = min(max(0, Int((start * Double(size)).rounded())), size - 1)
            let last = min(size, max(first + 1, Int(((start + length) * Double(size)).rounded())))
            return (first, last - first)
        }
        let (x, width) = span(left, self.width, pictureWidth), (y, height) = span(top, self.height, pictureHeight)
        return PixelRegion(left: x, top: y, width: width, height: height)
    }

    /// A point of the picture (pixels) in the view's input pixels (`inputSide` square), and the scale factors:
    /// `x' = (x − region.left) · inputSide / region.width`, mirrored as `inputSide − x'`.
    public func boxTransform(pictureWidth: Int, pictureHeight: Int, inputSide: Int)
        -> (offsetX: Double, offsetY: Double, scaleX: Double, scaleY: Double, mirrored: Bool)
    {
        let region = pixelRegion(pictureWidth: pictureWidth, pictureHeight: pictureHeight)
        return (
            Double(region.left), Double(region.top), Double(inputSide) / Double(region.width),
            Double(inputSide) / Double(region.height), mirrored
        )
    }

    /// The view in the cache key: every number written exactly (Double's shortest round-trip form).
    var cacheDescription: String { "view \(left) \(top) \(width) \(height) \(mirrored ? "mirrored" : "plain")" }

    /// The view's `inputSide × inputSide` 8-bit picture: the region resized with the preprocessing's filter
    /// (antialiased bicubic), then mirrored.
    public func render(_ picture: RGBImage, inputSide: Int) -> RGBImage {
        let region = pixelRegion(pictureWidth: picture.width, pictureHeight: picture.height)
        var view = Resize.bicubic(picture, region: region, outputWidth: inputSide, outputHeight: inputSide)
        if mirrored {
            var pixels = view.pixels
            for y in 0..<inputSide {
                for x in 0..<(inputSide / 2) {
                    let left = (y * inputSide + x) * 3, right = (y * inputSide + inputSide - 1 - x) * 3
                    for channel in 0..<3 { pixels.swapAt(left + channel, right + channel) }
                }
            }
            view = RGBImage(width: inputSide, height: inputSide, pixels: pixels)
        }
        return view
    }
}
