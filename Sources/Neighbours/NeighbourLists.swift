/// The `k` nearest neighbours of every row of a feature matrix, by cosine similarity.
///
/// Layout: `indices` and `similarities` are row-major `[count, k]`; row `i` lists `i`'s neighbours from the most
/// similar down (equal similarities: the lower index first). A row never lists itself. When fewer than `k` other
/// rows exist, the missing places hold index `-1` and similarity `-infinity`.
public struct NeighbourLists: Sendable, Equatable {
    /// Rows searched.
    public let count: Int
    /// Neighbours kept per row.
    public let k: Int
    /// `[count, k]`: the neighbour's row, or -1 for an empty place.
    public var indices: [Int32]
    /// `[count, k]`: the cosine similarity in [-1, 1] of the neighbour, or `-infinity` for an empty place.
    public var similarities: [Float]

    /// Wraps lists made by a search; `indices` and `similarities` hold `count · k` values each.
    public init(count: Int, k: Int, indices: [Int32], similarities: [Float]) {
        precondition(indices.count == count * k && similarities.count == count * k, "NeighbourLists: [count, k] arrays")
        self.count = count
        self.k = k
        self.indices = indices
        self.similarities = similarities
    }

    /// Row `row`'s neighbours, most similar first, empty places left out.
    public func neighbours(of row: Int) -> [(index: Int, similarity: Float)] {
        (0..<k).compactMap { place in
            let index = indices[row * k + place]
            return index < 0 ? nil : (Int(index), similarities[row * k + place])
        }
    }

    /// The mean cosine distance `1 − similarity` from `row` to its listed neighbours; 0 when it has none.
    public func meanDistance(of row: Int) -> Double {
        let listed = neighbours(of: row)
        guard !listed.isEmpty else { return 0 }
        return listed.reduce(0.0) { $0 + (1 - Double($1.similarity)) } / Double(listed.count)
    }
}
