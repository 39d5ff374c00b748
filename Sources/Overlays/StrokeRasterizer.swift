/// A rectangle of pixels: where an overlay sits in the frame and how big it is.
public struct PixelRectangle: Sendable, Equatable {
    /// The left column.
    public var x: Int
    /// The top row.
    public var y: Int
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int

    /// A rectangle from its parts.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// Anti-aliased strokes of a polyline, as coverage in [0, 1] per pixel.
///
/// A pixel's coverage is `clamp(w/2 + ½ − d, 0, 1)`, d the distance from the pixel's centre to the polyline and w
/// the stroke width: a linear ramp one pixel wide across the stroke's edge (the box-filter coverage of a straight
/// edge), round caps and joins for free. Coverage falls as d grows, so a pixel's coverage under the whole polyline
/// is the largest of its coverages under each piece: `coverage` visits, for each piece, only the pixels of its
/// bounding box widened by the half width and the ramp, and keeps the largest value; `referenceCoverage` measures
/// every pixel's distance to every piece. Both compute each distance by the same formula, so they agree exactly.
public enum StrokeRasterizer {
    /// Coverage of `region` (row-major, `region.width × region.height`) by the polyline `points` (frame pixels)
    /// stroked `width` pixels wide.
    public static func coverage(points: [OverlayPoint], width: Double, region: PixelRectangle) -> [Float] {
        var result = [Float](repeating: 0, count: max(0, region.width) * max(0, region.height))
        guard !points.isEmpty, region.width > 0, region.height > 0, width > 0 else { return result }
        let reach = width / 2 + 0.5
        let pieces = points.count == 1 ? [(points[0], points[0])] : (1..<points.count).map { (points[$0 - 1], points[$0]) }
        result.withUnsafeMutableBufferPointer { pixels in
            for (a, b) in pieces {
                // Pixel centres within `reach` of the piece: columns whose centre x + ½ lies in [min − reach, max + reach].
                let left = max(region.x, Int((min(a.x, b.x) - reach - 0.5).rounded(.up)))
                let right = min(region.x + region.width - 1, Int((max(a.x, b.x) + reach - 0.5).rounded(.down)))
                let top = max(region.y, Int((min(a.y, b.y) - reach - 0.5).rounded(.up)))
                let bottom = min(region.y + region.height - 1, Int((max(a.y, b.y) + reach - 0.5).rounded(.down)))
                guard left <= right, top <= bottom else { continue }
                for row in top...bottom {
                    let base = (row - region.y) * region.width - region.x
                    for column in left...right {
                        let value = Float(ramp(distance(column, row, a, b), width: width))
                        if value > pixels[base + column] { pixels[base + column] = value }
                    }
                }
            }
        }
        return result
    }

    /// The naive reference: every pixel of `region` against every piece, coverage of the smallest distance.
    public static func referenceCoverage(points: [OverlayPoint], width: Double, region: PixelRectangle) -> [Float] {
        var result = [Float](repeating: 0, count: max(0, region.width) * max(0, region.height))
        guard !points.isEmpty, region.width > 0, region.height > 0, width > 0 else { return result }
        let pieces = points.count == 1 ? [(points[0], points[0])] : (1..<points.count).map { (points[$0 - 1], points[$0]) }
        for row in 0..<region.height {
            for column in 0..<region.width {
                var nearest = Double.infinity
                for (a, b) in pieces { nearest = min(nearest, distance(region.x + column, region.y + row, a, b)) }
                result[row * region.width + column] = Float(ramp(nearest, width: width))
            }
        }
        return result
    }

    /// Straight (not premultiplied) RGBA bytes of `coverage` in `color`: the colour everywhere, coverage as alpha.
    public static func rgba(coverage: [Float], color: OverlayColor) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: coverage.count * 4)
        for (index, value) in coverage.enumerated() where value > 0 {
            bytes[4 * index] = color.red
            bytes[4 * index + 1] = color.green
            bytes[4 * index + 2] = color.blue
            bytes[4 * index + 3] = UInt8((min(1, value) * 255).rounded())
        }
        return bytes
    }

    /// `clamp(w/2 + ½ − d, 0, 1)`.
    static func ramp(_ distance: Double, width: Double) -> Double {
        min(1, max(0, width / 2 + 0.5 - distance))
    }

    /// The distance from the centre of pixel (column, row) to the piece from `a` to `b` (a point when they meet).
    static func distance(_ column: Int, _ row: Int, _ a: OverlayPoint, _ b: OverlayPoint) -> Double {
        let px = Double(column) + 0.5, py = Double(row) + 0.5
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        var t = lengthSquared > 0 ? ((px - a.x) * dx + (py - a.y) * dy) / lengthSquared : 0
        t = min(1, max(0, t))
        let nearestX = a.x + t * dx - px, nearestY = a.y + t * dy - py
        return (nearestX * nearestX + nearestY * nearestY).squareRoot()
    }
}
