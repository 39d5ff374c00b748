import FileFormats
import Foundation
@testable import ClassifierTraining
import XCTest

/// The automatic fine-tuning choice (`train --fine-tune-auto`): the time estimate counts every fold and every refit
/// at their rates, and the choice follows room and budget, each case computed by hand.
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

    func testAPlainTrainingHintsAtFineTuningOnlyBelowTheRoomThreshold() throws {
        func hint(_ accuracy: Double?, images: Int = 250) -> TrainingReport.FineTuningHint? {
            let choice = AutomaticFineTuning.choose(frozenHeldOutAccuracy: accuracy, images: images, epochs: 10, splits: 3, refits: 3, threads: 2)
            return AutomaticFineTuning.hint(after: choice, frozenHeldOutAccuracy: accuracy)
        }
        let room = try XCTUnwrap(hint(0.644))
        XCTAssertEqual(room.premise, "hint: the frozen head's held-out accuracy is 64.4 %, below 80 %, where fine-tuning has paid: ")
        XCTAssertEqual(room.hint, .fineTuneAutomatically)
        XCTAssertEqual(
            room.text,
            "hint: the frozen head's held-out accuracy is 64.4 %, below 80 %, where fine-tuning has paid: "
                + "the automatic choice tries it (minutes, not seconds)")
        XCTAssertNil(hint(0.80))
        XCTAssertNil(hint(0.93))
        XCTAssertNil(hint(nil), "nothing held out: nothing to judge by")
        // 400 images: 700 s by the estimate, over the automatic choice's budget, so the hint is to insist.
        let overBudget = hint(0.644, images: 400)
        XCTAssertEqual(overBudget?.hint, .fineTuneOverBudget)
        XCTAssertEqual(overBudget?.estimatedMinutes, 12)
        XCTAssertEqual(
            overBudget?.text,
            "hint: the frozen head's held-out accuracy is 64.4 %, below 80 %, where fine-tuning "
                + "has paid: fine-tuning tries it when asked for (about 12 minutes by the automatic choice's estimate, over its budget)")
    }

    /// The stored hint is one string, as `fineTuningHint` always was: its text, read back as the text alone.
    func testTheHintIsStoredAsItsText() throws {
        let hint = try XCTUnwrap(
            AutomaticFineTuning.hint(
                after: AutomaticFineTuning.choose(frozenHeldOutAccuracy: 0.5, images: 100, epochs: 10, splits: 3, refits: 3, threads: 2),
                frozenHeldOutAccuracy: 0.5))
        let stored = try JSONEncoder().encode([hint])
        XCTAssertEqual(String(decoding: stored, as: UTF8.self), "[\"\(hint.text)\"]")
        let read = try JSONDecoder().decode([TrainingReport.FineTuningHint].self, from: stored)
        XCTAssertEqual(read.first?.text, hint.text)
        XCTAssertNil(read.first?.hint, "the typed remedy lives in memory only")
    }

    /// Over the budget the choice's reason says so and its typed hint is to insist; the hint is not stored.
    func testAChoiceOverTheBudgetCarriesTheInsistHintInMemoryOnly() throws {
        let tooLong = AutomaticFineTuning.choose(frozenHeldOutAccuracy: 0.7, images: 400, epochs: 10, splits: 3, refits: 3, threads: 2)
        XCTAssertEqual(tooLong.hint, .insistOnFineTuning)
        XCTAssertTrue(tooLong.reason.hasSuffix("over the 10-minute budget"), tooLong.reason)
        let fits = AutomaticFineTuning.choose(frozenHeldOutAccuracy: 0.79, images: 250, epochs: 10, splits: 3, refits: 3, threads: 2)
        XCTAssertNil(fits.hint)
        let stored = try JSONSerialization.jsonObject(with: JSONEncoder().encode(tooLong)) as? [String: Any]
        XCTAssertEqual(stored.map { Set($0.keys) }, ["fineTunes", "reason", "estimatedSeconds"])
    }
}
