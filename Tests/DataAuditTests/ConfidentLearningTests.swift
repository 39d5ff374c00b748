import DataAudit
import Foundation
import XCTest

final class ConfidentLearningTests: XCTestCase {
    /// Confident learning written out plainly from the paper's definitions (dictionaries, Double, no early exits),
    /// the reference the library's single pass is held to.
    private func plainIssues(probabilities: [[Double]], labels: [Int]) -> (thresholds: [Double], issues: [Int], suggested: [Int: Int]) {
        let classCount = probabilities[0].count
        var thresholds: [Double] = []
        for label in 0..<classCount {
            let own = labels.indices.filter { labels[$0] == label }.map { probabilities[$0][label] }
            thresholds.append(own.isEmpty ? .infinity : own.reduce(0, +) / Double(own.count))
        }
        var suggested: [Int: Int] = [:]
        for (row, given) in labels.enumerated() {
            let confident = (0..<classCount).filter { probabilities[row][$0] >= thresholds[$0] - 1e-6 }
            guard
                let best = confident.max(by: {
                    probabilities[row][$0] < probabilities[row][$1] || (probabilities[row][$0] == probabilities[row][$1] && $0 > $1)
                })
            else { continue }
            if best != given { suggested[row] = best }
        }
        let issues = suggested.keys.sorted { (probabilities[$0][labels[$0]], $0) < (probabilities[$1][labels[$1]], $1) }
        return (thresholds, issues, suggested)
    }

    private func check(_ rows: [[Double]], labels: [Int], expectedIssues: [Int]? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let classCount = rows[0].count
        let outcome = ConfidentLearning.find(probabilities: rows.flatMap { $0.map(Float.init) }, labels: labels, classCount: classCount)
        let plain = plainIssues(probabilities: rows.map { $0.map { Double(Float($0)) } }, labels: labels)
        XCTAssertEqual(outcome.issues, plain.issues, "issues", file: file, line: line)
        for (row, label) in plain.suggested { XCTAssertEqual(outcome.likelyLabels[row], label, "row \(row)", file: file, line: line) }
        for label in 0..<classCount where plain.thresholds[label].isFinite {
            XCTAssertEqual(Double(outcome.thresholds[label]), plain.thresholds[label], accuracy: 1e-6, file: file, line: line)
        }
        if let expectedIssues { XCTAssertEqual(outcome.issues, expectedIssues, "by hand", file: file, line: line) }
    }

    /// Two labels worked by hand: thresholds 0.7 (a) and 0.75 (b). Picture 2 sits in a but reaches only b's
    /// threshold; picture 5 sits in b, reaches both, and a is more probable; picture 3 is unsure and reaches none.
    func testSmallCaseByHand() {
        let rows: [[Double]] = [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8], [0.8, 0.2], [0.1, 0.9], [0.75, 0.25], [0.1, 0.9], [0.05, 0.95]]
        let labels = [0, 0, 0, 0, 1, 1, 1, 1]
        let outcome = ConfidentLearning.find(probabilities: rows.flatMap { $0.map(Float.init) }, labels: labels, classCount: 2)
        XCTAssertEqual(outcome.thresholds.map(Double.init), [0.7, 0.75], accuracy: 1e-6)
        XCTAssertEqual(outcome.issues, [2, 5], "the lower self-confidence first: 0.2, then 0.25")
        XCTAssertEqual(outcome.likelyLabels[2], 1)
        XCTAssertEqual(outcome.likelyLabels[5], 0)
        XCTAssertEqual(outcome.joint, [3, 1, 1, 3])
        check(rows, labels: labels, expectedIssues: [2, 5])
    }

    /// A picture that fits no label well (flat probabilities below every threshold) is not forced into one.
    func testUnsurePictureIsNotFlagged() {
        let rows: [[Double]] = [
            [0.9, 0.05, 0.05], [0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9], [0.34, 0.33, 0.33],
        ]
        let labels = [0, 0, 1, 1, 2, 2]
        let outcome = ConfidentLearning.find(probabilities: rows.flatMap { $0.map(Float.init) }, labels: labels, classCount: 3)
        XCTAssertNil(outcome.likelyLabels[5])
        XCTAssertEqual(outcome.issues, [])
        XCTAssertEqual(outcome.joint.reduce(0, +), 5, "the unsure picture is in no cell")
        check(rows, labels: labels)
    }

    /// A label with one picture: its threshold is that picture's probability, which it reaches.
    func testOnePictureLabelReachesItsOwnThreshold() {
        let rows: [[Double]] = [[0.8, 0.2], [0.7, 0.3], [0.6, 0.4]]
        let outcome = ConfidentLearning.find(probabilities: rows.flatMap { $0.map(Float.init) }, labels: [0, 0, 1], classCount: 2)
        // t_a = 0.75, t_b = 0.4: picture 2 reaches only its own label's threshold, picture 1 none.
        XCTAssertEqual(outcome.likelyLabels, [0, nil, 1])
        XCTAssertEqual(outcome.issues, [])
    }

    /// Random cases against the plain reference: many labels, ties rounded in, moved labels.
    func testRandomCasesAgainstPlainReference() {
        var state: UInt64 = 12345
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        for classCount in [2, 3, 5, 9] {
            let count = 60 + classCount * 10
            var rows: [[Double]] = [], labels: [Int] = []
            for row in 0..<count {
                let truth = row % classCount
                var values = (0..<classCount).map { _ in (next() * 10).rounded() / 10 + 0.05 }
                values[truth] += 2 * next()
                let sum = values.reduce(0, +)
                rows.append(values.map { $0 / sum })
                labels.append(next() < 0.1 ? (truth + 1) % classCount : truth)
            }
            check(rows, labels: labels)
        }
    }

    /// cleanlab's thresholds, confident joint and ranked issues (filter_by "confident_learning") on fixed
    /// probabilities, written by scripts/fixtures/make-doctor-goldens.py.
    func testAgreesWithCleanlab() throws {
        let url = try XCTUnwrap(Bundle.module.url(forResource: "confident-learning-goldens", withExtension: "json", subdirectory: "Fixtures"))
        struct Case: Decodable {
            var classCount: Int
            var labels: [Int]
            var probabilities: [Double]
            var thresholds: [Double]
            var joint: [Int]
            var confidentLearningIssues: [Int]
        }
        struct Goldens: Decodable { var cases: [String: Case] }
        let goldens = try JSONDecoder().decode(Goldens.self, from: Data(contentsOf: url))
        XCTAssertEqual(goldens.cases.count, 3)
        for (name, golden) in goldens.cases {
            let outcome = ConfidentLearning.find(
                probabilities: golden.probabilities.map(Float.init), labels: golden.labels, classCount: golden.classCount)
            // Thresholds are Float means here, float64 means there.
            XCTAssertEqual(outcome.thresholds.map(Double.init), golden.thresholds, accuracy: 1e-6, name)
            XCTAssertEqual(outcome.joint, golden.joint, name)
            XCTAssertEqual(outcome.issues, golden.confidentLearningIssues, name)
            XCTAssertFalse(golden.confidentLearningIssues.isEmpty, name)
        }
    }
}

private func XCTAssertEqual(
    _ a: [Double], _ b: [Double], accuracy: Double, _ message: String = "", file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertEqual(a.count, b.count, message, file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, message, file: file, line: line) }
}
