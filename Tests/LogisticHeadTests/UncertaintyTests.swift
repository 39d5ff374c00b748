import LogisticHead
import XCTest

final class UncertaintyTests: XCTestCase {
    /// Against values worked by hand from `(p + z²/2n ± z √(p(1−p)/n + z²/4n²)) / (1 + z²/n)`, z = 1.96:
    /// 5 of 10 → 0.2366–0.7634; 0 of 10 → 0–0.2775; 10 of 10 → 0.7225–1; 30 of 51 (58.8 %) → 0.4517–0.7125, the
    /// issue's "58.8 % (45–71 %, 51 images)".
    func testWilsonIntervalAgainstHandComputedValues() {
        let cases: [(Int, Int, Double, Double)] = [
            (5, 10, 0.2366, 0.7634), (0, 10, 0, 0.2775), (10, 10, 0.7225, 1),
            (30, 51, 0.4517, 0.7125),
        ]
        for (successes, trials, lower, upper) in cases {
            let interval = WilsonInterval.interval(successes: successes, trials: trials)
            XCTAssertEqual(interval.lower, lower, accuracy: 1e-4, "\(successes)/\(trials)")
            XCTAssertEqual(interval.upper, upper, accuracy: 1e-4, "\(successes)/\(trials)")
        }
        XCTAssertEqual(WilsonInterval.interval(proportion: 0.5, count: 0), AccuracyInterval(lower: 0, upper: 1))
    }

    /// Issue 44, item 8: the one form reports show an interval in, rounded to the nearest tenth (21 of 22 is
    /// 0.78202–0.99193 by the formula above): not outward, which printed "78–100 %".
    func testIntervalTextRoundsToTheNearestTenthOfAPercent() {
        XCTAssertEqual(WilsonInterval.interval(successes: 21, trials: 22).percentText, "78.2–99.2 %")
        XCTAssertEqual(WilsonInterval.interval(successes: 30, trials: 51).percentText, "45.2–71.2 %")
        XCTAssertEqual(AccuracyInterval(lower: 0, upper: 1).percentText, "0.0–100.0 %")
    }

    func testThresholdTableAndTargetPrecisionByHand() {
        let confidences = [0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.35]
        let correct = [true, true, true, false, true, false, true, false]
        let table = ConfidenceThresholds.table(confidences: confidences, correct: correct)
        XCTAssertEqual(table.map(\.threshold).first!, 0.30, accuracy: 1e-12)
        XCTAssertEqual(table.map(\.threshold).last!, 0.95, accuracy: 1e-12)
        XCTAssertEqual(table.count, 14)
        // At 0.30 everything is answered: 5 of 8 right.
        XCTAssertEqual(table[0].answered, 1)
        XCTAssertEqual(table[0].accuracy!, 5.0 / 8, accuracy: 1e-12)
        // At 0.70: 0.95, 0.9, 0.8, 0.7 answered, 3 right.
        let seventy = table.first { abs($0.threshold - 0.7) < 1e-9 }!
        XCTAssertEqual(seventy.answered, 0.5)
        XCTAssertEqual(seventy.accuracy!, 0.75, accuracy: 1e-12)
        XCTAssertNil(ConfidenceThresholds.table(confidences: [0.5], correct: [true], thresholds: [0.9])[0].accuracy)
        // Precision 1 is first reached above 0.7 (0.71 leaves 0.95, 0.9, 0.8); 0.75 above 0.5 (0.51 leaves five
        // predictions, four right; at 0.50 the wrong 0.5 joins: 4 of 6).
        XCTAssertEqual(ConfidenceThresholds.lowestThreshold(reaching: 1, confidences: confidences, correct: correct)!, 0.71, accuracy: 1e-12)
        XCTAssertEqual(ConfidenceThresholds.lowestThreshold(reaching: 0.75, confidences: confidences, correct: correct)!, 0.51, accuracy: 1e-12)
        XCTAssertEqual(ConfidenceThresholds.lowestThreshold(reaching: 0.5, confidences: confidences, correct: correct)!, 0, accuracy: 1e-12)
        XCTAssertNil(ConfidenceThresholds.lowestThreshold(reaching: 1, confidences: [0.9], correct: [false]))
    }
}
