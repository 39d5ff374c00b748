import TensorCore
import XCTest

final class ParallelSharesTests: XCTestCase {
    /// Over a grid of item and worker counts: the shares cover every item exactly once, in order, none is empty,
    /// there are min(items, workers) of them, and their sizes differ by at most one.
    func testSharesCoverEveryItemOnceForEveryCountAndWorkerCount() {
        for count in 0...70 {
            for parts in -1...40 {
                let shares = Parallel.shares(of: count, parts: parts)
                let context = "\(count) items over \(parts) workers: \(shares)"
                XCTAssertEqual(shares.count, count == 0 ? 0 : min(count, max(1, parts)), context)
                XCTAssertEqual(shares.flatMap { Array($0) }, Array(0..<count), context)
                XCTAssertTrue(shares.allSatisfy { !$0.isEmpty }, context)
                let sizes = shares.map(\.count)
                if let largest = sizes.max(), let smallest = sizes.min() {
                    XCTAssertLessThanOrEqual(largest - smallest, 1, context)
                    XCTAssertEqual(sizes, sizes.sorted(by: >), "larger shares first: \(context)")
                }
            }
        }
    }

    /// The cases that crashed `label` with ⌈count/workers⌉ shares.
    func testTheCountsThatCrashedLabel() {
        XCTAssertEqual(Parallel.shares(of: 1, parts: 3), [0..<1])
        XCTAssertEqual(Parallel.shares(of: 5, parts: 4), [0..<2, 2..<3, 3..<4, 4..<5])
        XCTAssertEqual(Parallel.shares(of: 32, parts: 4), [0..<8, 8..<16, 16..<24, 24..<32])
        XCTAssertEqual(Parallel.shares(of: 3, parts: Int.max), [0..<1, 1..<2, 2..<3])
        XCTAssertEqual(Parallel.shares(of: 0, parts: 4), [])
    }
}
