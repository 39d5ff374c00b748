/// A box in pixels of the picture as displayed (after EXIF rotation), centre-based as Create ML's annotations are:
/// `x`, `y` the centre, `width` and `height` the size.
public struct BoundingBox: Sendable, Equatable, Codable {
    /// The centre's column, in pixels from the picture's left edge.
    public var x: Double
    /// The centre's row, in pixels from the picture's top edge.
    public var y: Double
    /// The width in pixels.
    public var width: Double
    /// The height in pixels.
    public var height: Double

    /// A box from its centre and size.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// A box from its edges.
    public init(left: Double, top: Double, right: Double, bottom: Double) {
        self.init(x: (left + right) / 2, y: (top + bottom) / 2, width: right - left, height: bottom - top)
    }

    /// The left edge.
    public var left: Double { x - width / 2 }
    /// The top edge.
    public var top: Double { y - height / 2 }
    /// The right edge.
    public var right: Double { x + width / 2 }
    /// The bottom edge.
    public var bottom: Double { y + height / 2 }
    /// The area; zero for an empty or inverted box.
    public var area: Double { max(0, width) * max(0, height) }

    /// Intersection over union with `other`: 0 for disjoint (or empty) boxes, 1 for identical ones.
    public func intersectionOverUnion(_ other: BoundingBox) -> Double {
        let overlapWidth = max(0, min(right, other.right) - max(left, other.left))
        let overlapHeight = max(0, min(bottom, other.bottom) - max(top, other.top))
        let intersection = overlapWidth * overlapHeight
        let union = area + other.area - intersection
        return union > 0 ? intersection / union : 0
    }
}

/// One object a detector found: its label, the detector's confidence in it (0–1) and where it is.
public struct DetectedObject: Sendable, Equatable {
    /// The label, for example `person`.
    public var label: String
    /// The detector's score for the label, 0–1.
    public var confidence: Float
    /// Where it is, in pixels of the picture the detector was given.
    public var box: BoundingBox

    /// An object from its parts.
    public init(label: String, confidence: Float, box: BoundingBox) {
        self.label = label
        self.confidence = confidence
        self.box = box
    }
}
