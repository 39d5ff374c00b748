@testable import ClassifierTraining
import XCTest

/// `--fine-tune-auto`'s choice: the time estimate counts every fold and every refit at their rates, and the choice
/// follows room and budget, each case computed by hand.
final class AutomaticFineTuningTests: XCTestCase {
    func testTheEstimateCountsEachFoldAndEachRefitAsAPass() {
        // 250 images × 10 epochs = 2,500 image-passes; 3 folds at 15/s and 3 refits at 20/s: 2,500 × (0.2 + 0.15)
        // = 875 thread-seconds, over 2 threads 437.5 s.
        XCTAssertEqual(
            AutomaticFineTuning.estimatedSeconds(images: 250, epochs: 10, splits: 3, refits: 3, threads: 2), 437.5,
            accuracy: 1e-9)
        // One refit: 2,500 × (0.2 + 0.05) / 2 = 312.5 s.
        XCTAssertEqual(
            AutomaticFineTuning.estimatedSeconds(images: 250, epochs: 10, splits: 3, refits: 1, threads: 2), 312.5,
            accuracy: 1e-9)
    }

    func testRoomAndBudgetDecide() {
        let fits = AutomaticFineTuning.choose(frozenHeldOutAccuracy: 0.79, images: 250, epochs: 10, splits: 3, refits: 3, threads: 2)
        XCTAssertTrue(fits.fineTunes)
        XCTAssertTrue(fits.reason.contains("about 438 s for 250 images × 10 epochs × 6 runs on 2 threads"), fits.reason)
        XCTAssertTrue(fits.reason.contains("the frozen head's held-out accuracy is 79.0 %, below 80 %"), fits.reason)
        // 80 % and up: no room, whatever the time (an easy set's folds gain a few images that do not carry over).
        for accuracy in [0.80, 0.88, 0.96] {
            let noRoom = AutomaticFineTuning.choose(frozenHeldOutAccuracy: accuracy, images: 250, epochs: 10, splits: 3, refits: 3, threads: 2)
            XCTAssertFalse(noRoom.fineTunes, "\(accuracy)")
            XCTAssertTrue(noRoom.reason.contains("at least 80 % leaves little room"), noRoom.reason)
        }
        // 400 images: 4,000 × 0.35 / 2 = 700 s, over the 600-s budget.
        let tooLong = AutomaticFineTuning.choose(frozenHeldOutAccuracy: 0.7, images: 400, epochs: 10, splits: 3, refits: 3, threads: 2)
        XCTAssertFalse(tooLong.fineTunes)
        XCTAssertTrue(tooLong.reason.contains("about 700 s") && tooLong.reason.contains("over the 10-minute budget"), tooLong.reason)
    }

    func testAPlainTrainingHintsAtFineTuningOnlyBelowTheRoomThreshold() {
        func hint(_ accuracy: Double?, images: Int = 250) -> String? {
            let choice = AutomaticFineTuning.choose(frozenHeldOutAccuracy: accuracy, images: images, epochs: 10, splits: 3, refits: 3, threads: 2)
            return AutomaticFineTuning.hint(after: choice, frozenHeldOutAccuracy: accuracy)
        }
        XCTAssertEqual(
            hint(0.644),
            "hint: the frozen head's held-out accuracy is 64.4 %, below 80 %, where fine-tuning has paid: "
                + "--fine-tune-auto tries it (minutes, not seconds)")
        XCTAssertNil(hint(0.80))
        XCTAssertNil(hint(0.93))
        XCTAssertNil(hint(nil), "nothing held out: nothing to judge by")
        // 400 images: 700 s by the estimate, over --fine-tune-auto's budget, so the hint names --fine-tune.
        XCTAssertEqual(
            hint(0.644, images: 400),
            "hint: the frozen head's held-out accuracy is 64.4 %, below 80 %, where fine-tuning "
                + "has paid: --fine-tune tries it (about 12 minutes by --fine-tune-auto's estimate, over its budget)")
    }
}
