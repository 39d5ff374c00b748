import FineTuning
import XCTest

/// The decision between the frozen head and fine-tuning on constructed per-fold numbers: one side clearly winning
/// (both ways), a tie, a gain the folds disagree on, the epoch choice and its tie-break, divergence.
final class FineTuningDecisionTests: XCTestCase {
    /// Three folds of 20 held-out images, frozen at `frozen`, each epoch's accuracies given per fold.
    private func folds(frozen: [Double], epochs: [[Double]], losses: [[Double]]? = nil) -> [FineTuningFoldScores] {
        frozen.indices.map { fold in
            FineTuningFoldScores(
                heldOutImages: 20, frozenAccuracy: frozen[fold], epochAccuracies: epochs.map { $0[fold] },
                epochLosses: losses.map { $0.map { $0[fold] } } ?? epochs.map { _ in 1.0 })
        }
    }

    func testFineTuningThatWinsOnEveryFoldIsKept() {
        // Epoch 2: +3, +4, +3 images of 20 on the three folds.
        let decision = FineTuningDecision.decide(
            folds(
                frozen: [0.6, 0.6, 0.65],
                epochs: [[0.6, 0.65, 0.65], [0.75, 0.8, 0.8], [0.7, 0.75, 0.8]]))
        XCTAssertEqual(decision.epoch, 2)
        XCTAssertEqual(decision.gainedImages, 10)
        XCTAssertEqual(decision.heldOutImages, 60)
        XCTAssertEqual(decision.meanGain, 10.0 / 60, accuracy: 1e-12)
        // Gains 0.15, 0.2, 0.15: s = 0.028868, s/√3 = 0.016667.
        XCTAssertEqual(decision.standardError, 0.05 / 3, accuracy: 1e-9)
        XCTAssertTrue(decision.keepsFineTuned, decision.reason)
        XCTAssertTrue(decision.reason.hasSuffix("kept fine-tuning"), decision.reason)
        XCTAssertTrue(decision.reason.hasPrefix("+10 held-out images of 60 over 3 folds at epoch 2"), decision.reason)
    }

    func testFineTuningThatLosesKeepsTheFrozenHead() {
        let decision = FineTuningDecision.decide(folds(frozen: [0.9, 0.85, 0.9], epochs: [[0.8, 0.75, 0.8], [0.85, 0.8, 0.85]]))
        XCTAssertEqual(decision.epoch, 2)
        XCTAssertEqual(decision.gainedImages, -3)
        XCTAssertFalse(decision.keepsFineTuned)
        XCTAssertTrue(decision.reason.hasSuffix("under 2 images, kept the frozen head"), decision.reason)
    }

    func testATieKeepsTheFrozenHead() {
        let decision = FineTuningDecision.decide(folds(frozen: [0.7, 0.7, 0.7], epochs: [[0.7, 0.7, 0.7]]))
        XCTAssertEqual(decision.gainedImages, 0)
        XCTAssertEqual(decision.standardError, 0)
        XCTAssertFalse(decision.keepsFineTuned)
    }

    func testOneImageIsNotEnough() {
        let decision = FineTuningDecision.decide(folds(frozen: [0.7, 0.7, 0.7], epochs: [[0.75, 0.7, 0.7]]))
        XCTAssertEqual(decision.gainedImages, 1)
        XCTAssertFalse(decision.keepsFineTuned)
    }

    func testAGainTheFoldsDisagreeOnIsNoise() {
        // +6, −2, −2 images: 2 images gained overall, but one fold carries it all.
        let decision = FineTuningDecision.decide(folds(frozen: [0.5, 0.8, 0.8], epochs: [[0.8, 0.7, 0.7]]))
        XCTAssertEqual(decision.gainedImages, 2)
        XCTAssertGreaterThan(decision.standardError, decision.meanGain)
        XCTAssertFalse(decision.keepsFineTuned)
        XCTAssertTrue(decision.reason.hasSuffix("within the folds' noise, kept the frozen head"), decision.reason)
    }

    func testTheEpochIsTheBestPooledAccuracyThenTheLowerLossThenTheEarlier() {
        let accuracies: [[Double]] = [[0.7, 0.7, 0.7], [0.8, 0.8, 0.75], [0.75, 0.8, 0.8], [0.75, 0.8, 0.8]]
        // Epochs 2, 3 and 4 tie on 47 images; epoch 3 has the lowest pooled loss, epoch 4 the same as 3.
        let losses: [[Double]] = [[1, 1, 1], [0.9, 0.9, 0.9], [0.5, 0.6, 0.7], [0.6, 0.6, 0.6]]
        let decision = FineTuningDecision.decide(folds(frozen: [0.6, 0.6, 0.6], epochs: accuracies, losses: losses))
        XCTAssertEqual(decision.epoch, 3)
        XCTAssertTrue(decision.keepsFineTuned)
    }

    func testADivergedFoldKeepsTheFrozenHeadAndKeepFineTunedOverridesTheRuleOnly() {
        var scores = folds(frozen: [0.5, 0.5, 0.5], epochs: [[0.9, 0.9, 0.9]])
        XCTAssertTrue(FineTuningDecision.decide(scores).keepsFineTuned)
        scores[1].divergedAtEpoch = 1
        let diverged = FineTuningDecision.decide(scores, requiresGain: false)
        XCTAssertFalse(diverged.keepsFineTuned)
        XCTAssertEqual(diverged.reason, "fine-tuning diverged at epoch 1: kept the frozen head")
        let losing = folds(frozen: [0.9, 0.9, 0.9], epochs: [[0.5, 0.5, 0.5]])
        XCTAssertFalse(FineTuningDecision.decide(losing).keepsFineTuned)
        XCTAssertTrue(FineTuningDecision.decide(losing, requiresGain: false).keepsFineTuned)
    }

    func testOneSplitHasNoStandardError() {
        let one = [FineTuningFoldScores(heldOutImages: 40, frozenAccuracy: 0.8, epochAccuracies: [0.85], epochLosses: [0.4])]
        let decision = FineTuningDecision.decide(one)
        XCTAssertEqual(decision.standardError, 0)
        XCTAssertEqual(decision.gainedImages, 2)
        XCTAssertTrue(decision.keepsFineTuned, decision.reason)
        XCTAssertTrue(decision.reason.contains("over the held-out images"), decision.reason)
        XCTAssertEqual(FineTuningDecision.standardError([1, 2, 3, 4]), (5.0 / 3 / 4).squareRoot(), accuracy: 1e-12)
    }
}
