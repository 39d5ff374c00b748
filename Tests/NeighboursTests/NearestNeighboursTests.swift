import Neighbours
import TensorCore
import XCTest

final class NearestNeighboursTests: XCTestCase {
    /// Float similarities of 1,280-d dot products against the Double reference: a few ulps of 1 per product.
    static let similarityTolerance: Float = 2e-5

    private func randomFeatures(count: Int, dimension: Int, seed: UInt64) -> [Float] {
        var generator = SplitMix64(seed: seed)
        // Non-negative like the backbone's pooled features, so similarities crowd together and ranking is hard.
        return (0..<(count * dimension)).map { _ in Float.random(in: 0...1, using: &generator) }
    }

    /// The blocked search against the brute-force reference, across block edges (count above a query block and a
    /// column block), with k above and below the number of other rows.
    func testMatchesBruteForce() {
        for (count, dimension, k) in [(1, 8, 3), (2, 8, 3), (7, 16, 10), (40, 32, 5), (600, 24, 7), (2100, 6, 4)] {
            let features = randomFeatures(count: count, dimension: dimension, seed: UInt64(count * 31 + k))
            let fast = NearestNeighbours.search(features: features, count: count, dimension: dimension, k: k, threads: 2)
            let reference = NearestNeighboursReference.search(features: features, count: count, dimension: dimension, k: k)
            XCTAssertEqual(fast.count, count)
            XCTAssertEqual(fast.k, k)
            for place in 0..<(count * k) {
                XCTAssertEqual(fast.indices[place] < 0, reference.indices[place] < 0, "count \(count), place \(place)")
                guard reference.indices[place] >= 0 else { continue }
                XCTAssertEqual(
                    fast.similarities[place], reference.similarities[place], accuracy: Self.similarityTolerance,
                    "count \(count), place \(place)")
                // Where neighbours are not near-tied, they are the same rows.
                let row = place / k
                let others = reference.neighbours(of: row).map(\.similarity)
                let rank = place % k
                let separated = others.indices.allSatisfy { $0 == rank || abs(others[$0] - others[rank]) > 2 * Self.similarityTolerance }
                if separated { XCTAssertEqual(fast.indices[place], reference.indices[place], "count \(count), row \(row), rank \(rank)") }
                XCTAssertNotEqual(Int(fast.indices[place]), row, "a row is never its own neighbour")
            }
        }
    }

    /// Copies, zero rows and scaled rows: a scaled copy has similarity 1, a zero row similarity 0 to everything.
    func testCopiesScalesAndZeroRows() {
        let dimension = 4
        let features: [Float] = [1, 2, 3, 4, /* */ 2, 4, 6, 8, /* */ 0, 0, 0, 0, /* */ 4, 3, 2, 1, /* */ 1, 0, 0, 0]
        let lists = NearestNeighbours.search(features: features, count: 5, dimension: dimension, k: 4)
        XCTAssertEqual(lists.neighbours(of: 0).first?.index, 1)
        XCTAssertEqual(Double(lists.neighbours(of: 0).first!.similarity), 1, accuracy: 1e-6)
        XCTAssertEqual(lists.neighbours(of: 2).map(\.similarity), [0, 0, 0, 0])
        XCTAssertEqual(lists.neighbours(of: 2).map(\.index), [0, 1, 3, 4], "equal similarities: lower index first")
        XCTAssertEqual(lists, NearestNeighboursReference.search(features: features, count: 5, dimension: dimension, k: 4).rounded(lists))
    }

    /// The answer does not depend on the thread count.
    func testThreadCountDoesNotChangeTheAnswer() {
        let features = randomFeatures(count: 1100, dimension: 20, seed: 7)
        let one = NearestNeighbours.search(features: features, count: 1100, dimension: 20, k: 6, threads: 1)
        let three = NearestNeighbours.search(features: features, count: 1100, dimension: 20, k: 6, threads: 3)
        XCTAssertEqual(one, three)
    }

    func testMeanDistance() {
        let lists = NeighbourLists(count: 2, k: 2, indices: [1, -1, 0, -1], similarities: [0.5, -.infinity, 0.25, -.infinity])
        XCTAssertEqual(lists.meanDistance(of: 0), 0.5, accuracy: 1e-12)
        XCTAssertEqual(lists.meanDistance(of: 1), 0.75, accuracy: 1e-12)
        XCTAssertEqual(NeighbourLists(count: 1, k: 2, indices: [-1, -1], similarities: [-.infinity, -.infinity]).meanDistance(of: 0), 0)
    }
}

extension NeighbourLists {
    /// These lists with `other`'s similarities where both are within the test tolerance (for an exact comparison of
    /// the indices).
    fileprivate func rounded(_ other: NeighbourLists) -> NeighbourLists {
        var copy = self
        for place in similarities.indices where abs(similarities[place] - other.similarities[place]) <= NearestNeighboursTests.similarityTolerance {
            copy.similarities[place] = other.similarities[place]
        }
        return copy
    }
}
