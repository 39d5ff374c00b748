/// A box by its edges, in pixels of the picture as displayed (EXIF orientation applied): `left ≤ right`,
/// `top ≤ bottom`, x growing to the right and y downwards. The edges are continuous coordinates: a box over the
/// whole of a 640 × 480 picture is (0, 0, 640, 480).
///
/// Create ML's annotations and `detect --json` give a box by its centre and size; the detector's training, its
/// decoding and the metrics all work on edges, so the reader converts once.
public struct CornerBox: Sendable, Equatable, Hashable, Codable {
    /// The left edge.
    public var left: Double
    /// The top edge.
    public var top: Double
    /// The right edge.
    public var right: Double
    /// The bottom edge.
    public var bottom: Double

    /// A box from its edges.
    public init(left: Double, top: Double, right: Double, bottom: Double) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    /// A box from its centre and size, as Create ML writes it.
    public init(centerX: Double, centerY: Double, width: Double, height: Double) {
        self.init(left: centerX - width / 2, top: centerY - height / 2, right: centerX + width / 2, bottom: centerY + height / 2)
    }

    /// `right − left`.
    public var width: Double { right - left }
    /// `bottom − top`.
    public var height: Double { bottom - top }
    /// The centre's column.
    public var centerX: Double { (left + right) / 2 }
    /// The centre's row.
    public var centerY: Double { (top + bottom) / 2 }
    /// The area; zero for an empty or inverted box.
    public var area: Double { max(0, width) * max(0, height) }

    /// Intersection over union, computed as pycocotools' `bbIou` computes it (so that the metrics agree with it
    /// to the last bit): the overlap's width and height, 0 when either is not positive, over the sum of the two
    /// areas minus the overlap.
    public func intersectionOverUnion(_ other: CornerBox) -> Double {
        let overlapWidth = min(right, other.right) - max(left, other.left)
        if overlapWidth <= 0 { return 0 }
        let overlapHeight = min(bottom, other.bottom) - max(top, other.top)
        if overlapHeight <= 0 { return 0 }
        let intersection = overlapWidth * overlapHeight
        return intersection / (width * height + other.width * other.height - intersection)
    }

    /// The box cut to the `width × height` picture.
    public func clipped(width pictureWidth: Double, height pictureHeight: Double) -> CornerBox {
        CornerBox(
            left: min(max(left, 0), pictureWidth), top: min(max(top, 0), pictureHeight),
            right: min(max(right, 0), pictureWidth), bottom: min(max(bottom, 0), pictureHeight))
    }
}
