import FineTuning
import Foundation
import XCTest

/// The rule that stops a diverging run (issue 23, item 8): an epoch's training loss not finite or above 10 times
/// the reference (the starting model's held-out loss, at least ln(classes)), or a held-out loss not finite.
final class DivergenceRuleTests: XCTestCase {
    private func epoch(_ number: Int, loss: Double, heldOutLoss: Double = 0.5, accuracy: Double = 0.5) -> FineTuningEpoch {
        FineTuningEpoch(epoch: number, loss: loss, heldOutLoss: heldOutLoss, heldOutAccuracy: accuracy, seconds: 1)
    }

    func testTheRule() {
        XCTAssertEqual(FineTuningLoop.divergenceReference(startingLoss: 0.01, classCount: 2), log(2), "a uniform guess's at least")
        XCTAssertEqual(FineTuningLoop.divergenceReference(startingLoss: 1.5, classCount: 2), 1.5)
        XCTAssertEqual(FineTuningLoop.divergenceReference(startingLoss: .nan, classCount: 4), log(4))
        let reference = 2.0
        XCTAssertFalse(FineTuningLoop.isDiverging(epoch(1, loss: 1.07), reference: reference))
        XCTAssertFalse(FineTuningLoop.isDiverging(epoch(2, loss: 20), reference: reference), "exactly 10 times is allowed")
        XCTAssertTrue(FineTuningLoop.isDiverging(epoch(2, loss: 20.01), reference: reference))
        XCTAssertTrue(FineTuningLoop.isDiverging(epoch(3, loss: 231), reference: reference), "the issue's run")
        XCTAssertTrue(FineTuningLoop.isDiverging(epoch(1, loss: 1074), reference: log(2)), "diverged within the first epoch")
        XCTAssertTrue(FineTuningLoop.isDiverging(epoch(2, loss: .nan), reference: reference))
        XCTAssertTrue(FineTuningLoop.isDiverging(epoch(2, loss: .infinity), reference: reference))
        XCTAssertTrue(FineTuningLoop.isDiverging(epoch(2, loss: 0.5, heldOutLoss: .nan), reference: reference))
        XCTAssertFalse(FineTuningLoop.isDiverging(epoch(2, loss: 0.01), reference: reference), "a falling loss")
    }
}
