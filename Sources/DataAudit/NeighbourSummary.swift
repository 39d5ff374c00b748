import Neighbours

/// The dataset's own neighbour distances, which the near-copy and outlier rules are relative to.
public struct NeighbourSummary: Sendable, Equatable {
    /// Median over the pictures of the cosine distance to the nearest other picture.
    public var medianNearestDistance: Double
    /// Median over the pictures of the mean cosine distance to the listed neighbours.
    public var medianMeanDistance: Double
    /// The median absolute deviation of the mean distances from `medianMeanDistance`.
    public var meanDistanceDeviation: Double
    /// Each picture's mean cosine distance to its listed neighbours.
    public var meanDistances: [Double]

    /// The summary of `neighbours`; pictures without neighbours count as distance 0.
    public init(_ neighbours: NeighbourLists) {
        let nearest = (0..<neighbours.count).compactMap { row in neighbours.neighbours(of: row).first.map { 1 - Double($0.similarity) } }
        meanDistances = (0..<neighbours.count).map { neighbours.meanDistance(of: $0) }
        medianNearestDistance = Self.median(nearest)
        medianMeanDistance = Self.median(meanDistances)
        let centre = medianMeanDistance
        meanDistanceDeviation = Self.median(meanDistances.map { abs($0 - centre) })
    }

    /// The median (the mean of the middle two for an even count); 0 for none.
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
