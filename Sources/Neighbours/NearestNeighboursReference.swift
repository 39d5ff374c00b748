/// The plain search `NearestNeighbours.search` is tested against: every pair's cosine similarity in Double, one row
/// at a time, sorted. `O(count² · dimension)` time and `O(count)` memory per row; for tests at small sizes.
public enum NearestNeighboursReference {
    /// The same contract as `NearestNeighbours.search` (similarities rounded to Float at the end).
    public static func search(features: [Float], count: Int, dimension: Int, k: Int) -> NeighbourLists {
        var norms = [Double](repeating: 0, count: count)
        for row in 0..<count {
            for column in 0..<dimension {
                let value = Double(features[row * dimension + column])
                norms[row] += value * value
            }
            norms[row] = norms[row].squareRoot()
        }
        var indices = [Int32](repeating: -1, count: count * k)
        var similarities = [Float](repeating: -.infinity, count: count * k)
        for row in 0..<count {
            // The best k so far, most similar first; a later (higher) index never displaces an equal one.
            var best: [(index: Int, similarity: Double)] = []
            for other in 0..<count where other != row {
                var dot = 0.0
                for column in 0..<dimension {
                    dot += Double(features[row * dimension + column]) * Double(features[other * dimension + column])
                }
                let lengths = norms[row] * norms[other]
                let similarity = lengths > 0 ? dot / lengths : 0
                guard best.count < k || similarity > best[best.count - 1].similarity else { continue }
                let place = best.firstIndex { $0.similarity < similarity } ?? best.count
                best.insert((other, similarity), at: place)
                if best.count > k { best.removeLast() }
            }
            for (place, candidate) in best.enumerated() {
                indices[row * k + place] = Int32(candidate.index)
                similarities[row * k + place] = Float(candidate.similarity)
            }
        }
        return NeighbourLists(count: count, k: k, indices: indices, similarities: similarities)
    }
}
