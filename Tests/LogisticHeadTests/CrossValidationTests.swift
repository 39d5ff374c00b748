import LogisticHead
import XCTest

final class CrossValidationTests: XCTestCase {
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

    func testFoldsAreDisjointCompleteAndStratified() {
        for seed: UInt64 in [0, 1, 42, .max] {
            let assignment = StratifiedFolds.assign(labels: labels, classCount: 6, folds: 5, seed: seed)
            XCTAssertEqual(assignment.count, labels.count)
            // Disjoint and complete: the folds' member lists partition the samples.
            let folds = (0..<5).map { fold in labels.indices.filter { assignment[$0] == fold } }
            XCTAssertEqual(folds.flatMap { $0 }.sorted(), Array(labels.indices))
            for first in 0..<5 {
                for second in (first + 1)..<5 { XCTAssertTrue(Set(folds[first]).isDisjoint(with: folds[second])) }
            }
            // Stratified: each class spread over the folds as evenly as its size allows.
            for classIndex in 0..<6 {
                let perFold = folds.map { fold in fold.filter { labels[$0] == classIndex }.count }
                XCTAssertLessThanOrEqual(perFold.max()! - perFold.min()!, 1, "class \(classIndex): \(perFold)")
            }
            // 47 samples: fold sizes 10, 10, 9, 9, 9 in some order.
            XCTAssertEqual(folds.map(\.count).sorted(), [9, 9, 9, 10, 10])
        }
    }

    func testSameSeedSameFoldsAndRepeatsDiffer() {
        let first = StratifiedFolds.assign(labels: labels, classCount: 6, folds: 5, seed: 7)
        XCTAssertEqual(first, StratifiedFolds.assign(labels: labels, classCount: 6, folds: 5, seed: 7))
        XCTAssertEqual(StratifiedFolds.seed(7, repeat: 0), 7)
        let repeats = Set(
            (0..<4).map {
                StratifiedFolds.assign(labels: labels, classCount: 6, folds: 5, seed: StratifiedFolds.seed(7, repeat: $0))
            })
        XCTAssertEqual(repeats.count, 4, "each repeat draws new folds")
    }

    func testAutomaticPlanRepeatsSmallDataAndSplitsLargeData() {
        XCTAssertEqual(HeldOutPlan.automatic(trainingCount: 150), .crossValidation(folds: 5, repeats: 5))
        XCTAssertEqual(HeldOutPlan.automatic(trainingCount: 212), .crossValidation(folds: 5, repeats: 5))
        XCTAssertEqual(HeldOutPlan.automatic(trainingCount: 400), .crossValidation(folds: 5, repeats: 3))
        XCTAssertEqual(HeldOutPlan.automatic(trainingCount: 1000), .crossValidation(folds: 5, repeats: 1))
        XCTAssertEqual(HeldOutPlan.automatic(trainingCount: 2000), .crossValidation(folds: 5, repeats: 1))
        XCTAssertEqual(HeldOutPlan.automatic(trainingCount: 2001), .holdOut(fraction: 0.2))
        XCTAssertEqual(HeldOutPlan.crossValidation(folds: 5, repeats: 3).summary, "5-fold cross-validation, 3 repeats")
        XCTAssertEqual(HeldOutPlan.holdOut(fraction: 0.2).summary, "stratified 20 % held out")
    }
}
