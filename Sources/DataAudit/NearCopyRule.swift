/// When two pictures are near-copies: a cosine distance `1 − similarity` between their features far below the
/// distance at which the dataset's pictures usually find their nearest neighbour.
///
/// Let `d₁(x)` be the distance from picture `x` to its nearest other picture, and `m` the median of `d₁` over the
/// dataset. Two pictures are near-copies when their distance is at most `τ = min(factor · m, ceiling)`. Being
/// relative, the rule holds on a set of near-identical digits (small `m`, so a small `τ`) as on photos of distinct
/// things (a larger `m`); the ceiling keeps merely similar pictures of a varied dataset apart. A dataset whose
/// pictures all coincide (`m = 0`) gets `τ = 0`: only equal features pair up.
public struct NearCopyRule: Sendable, Equatable {
    /// The share of the median nearest-neighbour distance below which a pair is a near-copy.
    public var factor: Double
    /// The largest distance ever called a near-copy (similarity `1 − ceiling`).
    public var ceiling: Double

    /// The rule's defaults, measured on planted copies (docs/evidence/doctor.md).
    public static let standard = NearCopyRule(factor: 0.35, ceiling: 0.08)

    /// A rule with these constants.
    public init(factor: Double, ceiling: Double) {
        self.factor = factor
        self.ceiling = ceiling
    }

    /// `τ` for the dataset whose neighbour lists are `neighbours`.
    public func distanceThreshold(_ neighbours: NeighbourSummary) -> Double {
        min(factor * neighbours.medianNearestDistance, ceiling)
    }
}
