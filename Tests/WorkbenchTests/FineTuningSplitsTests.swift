@testable import ClassifierTraining
import XCTest

/// The held-out splits fine-tuning decides on: three stratified, disjoint, seeded folds below 1,000 training images,
/// one share above (or when asked), the validation folder when there is one.
final class FineTuningSplitsTests: XCTestCase {
    func testSmallDataGetsThreeStratifiedDisjointFoldsThatCoverEveryImage() throws {
        // 3 labels of 30, 12 and 7 images.
        let labels = Array(repeating: 0, count: 30) + Array(repeating: 1, count: 12) + Array(repeating: 2, count: 7)
        let plan = try FineTuningSplits.make(
            trainingLabels: labels, classCount: 3, validationCount: 0, hasValidationFolder: false,
            fraction: nil, seed: 42)
        XCTAssertEqual(plan.splits.count, 3)
        XCTAssertTrue(plan.refits)
        XCTAssertEqual(plan.method, .folds(3))
        XCTAssertEqual("\(plan.method)", "3 stratified folds")
        XCTAssertEqual(plan.splits.flatMap(\.heldOut).sorted(), Array(labels.indices), "each image held out exactly once")
        for split in plan.splits {
            XCTAssertTrue(Set(split.training).isDisjoint(with: split.heldOut))
            XCTAssertEqual(split.training.count + split.heldOut.count, labels.count)
            // Stratified: each label's held-out count is within one of a third of its images.
            for label in 0..<3 {
                let total = labels.filter { $0 == label }.count
                let held = split.heldOut.filter { labels[$0] == label }.count
                XCTAssertLessThanOrEqual(abs(3 * held - total), 3, "label \(label): \(held) of \(total)")
            }
        }
        let again = try FineTuningSplits.make(
            trainingLabels: labels, classCount: 3, validationCount: 0, hasValidationFolder: false,
            fraction: nil, seed: 42)
        XCTAssertEqual(again.splits.map(\.heldOut), plan.splits.map(\.heldOut), "seeded")
        let other = try FineTuningSplits.make(
            trainingLabels: labels, classCount: 3, validationCount: 0, hasValidationFolder: false,
            fraction: nil, seed: 7)
        XCTAssertNotEqual(other.splits.map(\.heldOut), plan.splits.map(\.heldOut))
    }

    func testLargeDataAShareOrAValidationFolderGiveOneSplit() throws {
        let large = (0..<1000).map { $0 % 4 }
        let share = try FineTuningSplits.make(
            trainingLabels: large, classCount: 4, validationCount: 0, hasValidationFolder: false,
            fraction: nil, seed: 42)
        XCTAssertEqual(share.splits.count, 1)
        XCTAssertEqual(share.splits[0].heldOut.count, 200)
        XCTAssertEqual("\(share.method)", "stratified 20 % held out")
        let asked = try FineTuningSplits.make(
            trainingLabels: Array(large.prefix(100)), classCount: 4, validationCount: 0,
            hasValidationFolder: false, fraction: 0.3, seed: 42)
        XCTAssertEqual(asked.splits.count, 1)
        XCTAssertEqual(asked.splits[0].heldOut.count, 32, "8 of each label's 25")
        let folder = try FineTuningSplits.make(
            trainingLabels: [0, 1, 0, 1], classCount: 2, validationCount: 3, hasValidationFolder: true,
            fraction: nil, seed: 42)
        XCTAssertEqual(folder.splits.map(\.training), [[0, 1, 2, 3]])
        XCTAssertEqual(folder.splits.map(\.heldOut), [[4, 5, 6]])
        XCTAssertFalse(folder.refits)
    }

    /// `train --fine-tune-auto` estimates its time from the method before any split is dealt: the method made from
    /// the counts alone must be the one `make` deals, at the fold limit's edge too.
    func testTheMethodFromCountsIsTheOneTheSplitsUse() throws {
        let cases: [(count: Int, folder: Bool, fraction: Double?, expected: FineTuningSplits.Method, splits: Int, refits: Bool)] = [
            (999, false, nil, .folds(3), 3, true), (1000, false, nil, .heldOutShare(0.2), 1, true),
            (120, false, 0.25, .heldOutShare(0.25), 1, true), (120, true, nil, .validationFolder, 1, false),
        ]
        for (count, folder, fraction, expected, splits, refits) in cases {
            let method = FineTuningSplits.Method(trainingCount: count, hasValidationFolder: folder, fraction: fraction)
            XCTAssertEqual(method, expected, "\(count) images")
            let plan = try FineTuningSplits.make(
                trainingLabels: (0..<count).map { $0 % 4 }, classCount: 4, validationCount: folder ? 8 : 0,
                hasValidationFolder: folder, fraction: fraction, seed: 3)
            XCTAssertEqual(method.splitCount, splits, "\(count) images")
            XCTAssertEqual(plan.splits.count, splits, "\(count) images: the splits dealt are the ones counted")
            XCTAssertEqual(method.refits, refits, "\(count) images")
            XCTAssertEqual(plan.refits, refits, "\(count) images")
        }
    }

    func testTooFewImagesToHoldOutIsAnError() {
        XCTAssertThrowsError(
            try FineTuningSplits.make(
                trainingLabels: [0, 1], classCount: 2, validationCount: 0,
                hasValidationFolder: false, fraction: nil, seed: 42)
        ) { error in
            XCTAssertTrue("\(error)".contains("leave a split with no image to hold out"), "\(error)")
        }
    }
}
