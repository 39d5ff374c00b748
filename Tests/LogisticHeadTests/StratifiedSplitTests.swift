import LogisticHead
import XCTest

final class StratifiedSplitTests: XCTestCase {
    /// Class sizes 10, 5, 4, 1, 20 and 7, interleaved.
    private let labels: [Int] = {
        let sizes = [10, 5, 4, 1, 20, 7]
        var remaining = sizes
        var result: [Int] = []
        while remaining.contains(where: { $0 > 0 }) {
            for classIndex in sizes.indices where remaining[classIndex] > 0 {
                result.append(classIndex)
                remaining[classIndex] -= 1
            }
        }
        return result
    }()

    private func validationCounts(_ validation: [Int]) -> [Int] {
        var counts = [Int](repeating: 0, count: 6)
        for index in validation { counts[labels[index]] += 1 }
        return counts
    }

    func testPerClassCountsFollowTheRule() {
        // fraction 0.1: round(1.0), max(1, round(0.5)), <5, <5, round(2.0), max(1, round(0.7)).
        let tenth = StratifiedSplit.split(labels: labels, classCount: 6, fraction: 0.1, seed: 1)
        XCTAssertEqual(validationCounts(tenth.validation), [1, 1, 0, 0, 2, 1])
        // fraction 0.5: round(5), round(2.5) = 3 (halves round away from zero), 0, 0, round(10), round(3.5) = 4.
        let half = StratifiedSplit.split(labels: labels, classCount: 6, fraction: 0.5, seed: 1)
        XCTAssertEqual(validationCounts(half.validation), [5, 3, 0, 0, 10, 4])
        // fraction 1: never all of a class, so n − 1.
        let all = StratifiedSplit.split(labels: labels, classCount: 6, fraction: 1, seed: 1)
        XCTAssertEqual(validationCounts(all.validation), [9, 4, 0, 0, 19, 6])
    }

    func testZeroFractionGivesNoValidation() {
        let split = StratifiedSplit.split(labels: labels, classCount: 6, fraction: 0, seed: 3)
        XCTAssertEqual(split.validation, [])
        XCTAssertEqual(split.training, Array(labels.indices))
    }

    func testDisjointCompleteAndSorted() {
        for seed: UInt64 in [0, 1, 42, .max] {
            let split = StratifiedSplit.split(labels: labels, classCount: 6, fraction: 0.3, seed: seed)
            XCTAssertEqual(split.training, split.training.sorted())
            XCTAssertEqual(split.validation, split.validation.sorted())
            XCTAssertTrue(Set(split.training).isDisjoint(with: split.validation))
            XCTAssertEqual((split.training + split.validation).sorted(), Array(labels.indices))
        }
    }

    func testSameSeedSameSplitAndDifferentSeedsDiffer() {
        let first = StratifiedSplit.split(labels: labels, classCount: 6, fraction: 0.3, seed: 7)
        let again = StratifiedSplit.split(labels: labels, classCount: 6, fraction: 0.3, seed: 7)
        XCTAssertEqual(first.training, again.training)
        XCTAssertEqual(first.validation, again.validation)
        let distinctSplits = Set(
            (0..<8).map {
                StratifiedSplit.split(labels: labels, classCount: 6, fraction: 0.3, seed: UInt64($0)).validation
            })
        // 47 samples with 14 held out: eight seeds colliding would mean the seed is ignored.
        XCTAssertGreaterThan(distinctSplits.count, 6)
    }

    func testEmptyClassesAndEmptyInput() {
        let split = StratifiedSplit.split(labels: [], classCount: 3, fraction: 0.2, seed: 1)
        XCTAssertEqual(split.training, [])
        XCTAssertEqual(split.validation, [])
    }
}
