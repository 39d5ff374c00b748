import Foundation

/// One held-out split's numbers as the decision reads them: the frozen head's held-out accuracy and every
/// fine-tuned epoch's, on the same images.
public struct FineTuningFoldScores: Sendable, Equatable, Codable {
    /// Images held out in this split (never trained on in it).
    public var heldOutImages: Int
    /// The frozen head's (the linear probe fitted on the split's training part) held-out accuracy.
    public var frozenAccuracy: Double
    /// Held-out accuracy after each epoch (index `epoch − 1`).
    public var epochAccuracies: [Double]
    /// Held-out cross-entropy after each epoch, the tie-break between epochs of equal accuracy.
    public var epochLosses: [Double]
    /// The epoch the split's run diverged at, if it did (`FineTuningLoop.isDiverging`).
    public var divergedAtEpoch: Int?

    /// A split's scores.
    public init(
        heldOutImages: Int, frozenAccuracy: Double, epochAccuracies: [Double], epochLosses: [Double],
        divergedAtEpoch: Int? = nil
    ) {
        self.heldOutImages = heldOutImages
        self.frozenAccuracy = frozenAccuracy
        self.epochAccuracies = epochAccuracies
        self.epochLosses = epochLosses
        self.divergedAtEpoch = divergedAtEpoch
    }

    /// Correct answers among the held-out images at `accuracy` (accuracies are counts over `heldOutImages`).
    func correct(_ accuracy: Double) -> Int { Int((accuracy * Double(heldOutImages)).rounded()) }
}

/// Whether to keep the fine-tuned model or the frozen head, decided on held-out splits (folds) only.
///
/// The rule, as `train --help` and docs/train.md ("Fine-tuning that holds on small data") state it:
/// 1. The epoch is the one with the best held-out accuracy pooled over the splits (every held-out image counts
///    once); between equal accuracies the lower pooled held-out loss, then the earlier epoch.
/// 2. At that epoch each split's gain is `dₖ = fine-tuned accuracyₖ − frozen accuracyₖ`. Fine-tuning is kept only
///    when it answers more than `minimumGainedImages − 1` more held-out images right than the frozen head over
///    all the splits (so at least two: one image is a coin toss), and its mean gain `d̄` (pooled) exceeds the
///    standard error of the `dₖ`, `s / √k` with `s` their sample standard deviation (0 for one split): a gain
///    that the folds disagree on is noise.
/// 3. A split that diverged keeps the frozen head whatever the others say.
///
/// Choosing the best of several epochs on the same images flatters the fine-tuned side a little; demanding two
/// images and more than one standard error is what pays for that choice.
public struct FineTuningDecision: Sendable, Equatable, Codable {
    /// The fewest extra held-out images fine-tuning must get right, over all splits, to be kept.
    public static let minimumGainedImages = 2

    /// The epoch chosen (from 1); 0 when no split has a trained epoch.
    public var epoch: Int
    /// Each split's gain at `epoch`, in accuracy (0 to 1).
    public var gains: [Double]
    /// The pooled gain at `epoch`: extra correct held-out images over all held-out images.
    public var meanGain: Double
    /// The standard error of `gains` (0 for one split).
    public var standardError: Double
    /// Extra held-out images right at `epoch`, over all splits (negative when fine-tuning lost images).
    public var gainedImages: Int
    /// Held-out images over all splits.
    public var heldOutImages: Int
    /// Whether the fine-tuned model is kept.
    public var keepsFineTuned: Bool
    /// Why, in one sentence.
    public var reason: String

    /// Applies the rule to `folds`. With `requiresGain` false (`train --keep-fine-tuned`) fine-tuning is kept
    /// whatever it gained, unless a split diverged.
    public static func decide(_ folds: [FineTuningFoldScores], requiresGain: Bool = true) -> FineTuningDecision {
        let epochs = folds.map { $0.epochAccuracies.count }.min() ?? 0
        let images = folds.reduce(0) { $0 + $1.heldOutImages }
        let frozenCorrect = folds.reduce(0) { $0 + $1.correct($1.frozenAccuracy) }
        var chosen = 0, bestCorrect = Int.min, bestLoss = Double.infinity
        for epoch in 1...max(1, epochs) where epochs > 0 {
            let correct = folds.reduce(0) { $0 + $1.correct($1.epochAccuracies[epoch - 1]) }
            let loss = folds.reduce(0.0) { $0 + $1.epochLosses[epoch - 1] * Double($1.heldOutImages) }
            if correct > bestCorrect || (correct == bestCorrect && loss < bestLoss) {
                (chosen, bestCorrect, bestLoss) = (epoch, correct, loss)
            }
        }
        guard chosen > 0, images > 0 else {
            return FineTuningDecision(
                epoch: 0, gains: [], meanGain: 0, standardError: 0, gainedImages: 0,
                heldOutImages: images, keepsFineTuned: false,
                reason: "no trained epoch to compare: kept the frozen head")
        }
        let gains = folds.map { $0.epochAccuracies[chosen - 1] - $0.frozenAccuracy }
        let gained = bestCorrect - frozenCorrect
        let meanGain = Double(gained) / Double(images)
        let error = standardError(gains)
        let splits = folds.count == 1 ? "the held-out images" : "\(folds.count) folds"
        let summary =
            "\(gained >= 0 ? "+" : "")\(gained) held-out images of \(images) over \(splits) at epoch \(chosen) "
            + "(\(String(format: "%+.1f", meanGain * 100)) points, standard error \(String(format: "%.1f", error * 100)))"
        var decision = FineTuningDecision(
            epoch: chosen, gains: gains, meanGain: meanGain, standardError: error,
            gainedImages: gained, heldOutImages: images, keepsFineTuned: false, reason: "")
        if let diverged = folds.compactMap(\.divergedAtEpoch).min() {
            decision.reason = "fine-tuning diverged at epoch \(diverged): kept the frozen head"
        } else if !requiresGain {
            decision.keepsFineTuned = true
            decision.reason = "\(summary): kept fine-tuning as asked"
        } else if gained < minimumGainedImages {
            decision.reason = "\(summary): under \(minimumGainedImages) images, kept the frozen head"
        } else if meanGain <= error {
            decision.reason = "\(summary): within the folds' noise, kept the frozen head"
        } else {
            decision.keepsFineTuned = true
            decision.reason = "\(summary): kept fine-tuning"
        }
        return decision
    }

    /// `s / √k`, `s` the sample standard deviation of `values` (k − 1 in its denominator); 0 for fewer than two.
    public static func standardError(_ values: [Double]) -> Double {
        guard values.count > 1 else { return 0 }
        let count = Double(values.count)
        let mean = values.reduce(0, +) / count
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (count - 1)
        return (variance / count).squareRoot()
    }
}
