/// A point in a video frame's pixels: x to the right, y down, from the frame's top-left corner (a pixel's centre
/// is at its column + ½, row + ½).
public struct OverlayPoint: Sendable, Equatable, Codable {
    /// Pixels from the left edge.
    public var x: Double
    /// Pixels from the top edge.
    public var y: Double

    /// A point from its coordinates.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// The quadratic curve through three points: the ball's flight a person draws with a start, a point the curve
/// passes through, and an end.
///
/// B(t) = (1 − t)² P₀ + 2t(1 − t) C + t² P₂ for t in [0, 1], with the control point C = 2P₁ − (P₀ + P₂)/2,
/// chosen so that B(½) = ¼P₀ + ½C + ¼P₂ = P₁: t runs from the first point (0) through the second (½) to the
/// third (1).
public struct QuadraticCurve: Sendable, Equatable {
    /// Where the curve starts (t = 0).
    public let start: OverlayPoint
    /// The point the curve passes at t = ½.
    public let through: OverlayPoint
    /// Where the curve ends (t = 1).
    public let end: OverlayPoint
    /// The Bézier control point that makes the curve pass `through` at t = ½.
    public let control: OverlayPoint

    /// The curve through `start`, `through` and `end`.
    public init(start: OverlayPoint, through: OverlayPoint, end: OverlayPoint) {
        self.start = start
        self.through = through
        self.end = end
        control = OverlayPoint(x: 2 * through.x - (start.x + end.x) / 2, y: 2 * through.y - (start.y + end.y) / 2)
    }

    /// B(t).
    public func point(at t: Double) -> OverlayPoint {
        let a = (1 - t) * (1 - t), b = 2 * t * (1 - t), c = t * t
        return OverlayPoint(x: a * start.x + b * control.x + c * end.x, y: a * start.y + b * control.y + c * end.y)
    }

    /// How many straight pieces approximate the whole curve: one per 2 pixels of the control polygon's length
    /// (an upper bound of the curve's), at least 8. A piece of a quadratic that short strays from the curve by
    /// under a hundredth of a pixel at the curvatures a frame can hold.
    public var segmentCount: Int {
        func distance(_ a: OverlayPoint, _ b: OverlayPoint) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        let length = distance(start, control) + distance(control, end)
        guard length.isFinite else { return 8 }
        return min(100_000, max(8, Int((length / 2).rounded(.up))))
    }

    /// The curve from t = 0 to `progress` (clamped to [0, 1]) as a polyline: the points at t = k / `segmentCount`
    /// up to `progress`, then the point at `progress` itself when it falls between two. A shorter curve is thus a
    /// prefix of a longer one (plus its tip), so a growing curve never wobbles from frame to frame.
    public func polyline(upTo progress: Double) -> [OverlayPoint] {
        let clamped = min(1, max(0, progress.isFinite ? progress : 0))
        let count = Double(segmentCount)
        let whole = Int((clamped * count).rounded(.down))
        var points = (0...whole).map { point(at: Double($0) / count) }
        if Double(whole) < clamped * count { points.append(point(at: clamped)) }
        return points
    }
}

extension OverlayPoint {
    /// Points written `x,y` separated by spaces, as the trace command's points are given (`120,400 300,80 520,410`);
    /// nil when a pair is not two finite numbers joined by one comma.
    public static func list(from text: String) -> [OverlayPoint]? {
        var points: [OverlayPoint] = []
        for pair in text.split(whereSeparator: { $0 == " " }) {
            let parts = pair.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]), x.isFinite, y.isFinite else { return nil }
            points.append(OverlayPoint(x: x, y: y))
        }
        return points
    }
}
