import FileFormats

/// The automatic choice (`train --fine-tune-auto`) made after the frozen head is chosen: fine-tune only when the frozen head
/// leaves room and the data is small enough to finish within the time budget.
///
/// - Room: the frozen head's cross-validated (held-out) accuracy is below `roomBelow`; above it, measured on held-out
///   images, the folds' few images of gain did not carry over.
/// - Time: every split trains and scores about one pass over the images per epoch at `foldImagesPerSecondPerThread`,
///   each refit one pass per epoch at `refitImagesPerSecondPerThread` (the chosen epoch count is not known yet, so
///   all `epochs` are counted), on `threads` threads; the sum must fit in `budgetSeconds`. Counting every split as a
///   whole pass (a fold trains on two thirds) keeps the estimate above the measured time.
public enum AutomaticFineTuning {
    /// Held-out accuracy of the frozen head from which fine-tuning is not tried. Chosen on the outer split
    /// (`scripts/accuracy/finetune-outer-split.sh`, training images only; `keep-rule-outer.py` tallies it): over 36
    /// runs, every run whose frozen head was below 80 % gained or tied (+56 outer images in 10 runs), while the 15
    /// fine-tuned runs from 82 % up came to 0 in all (from −3 to +3; −4 on the easy sets); no run fell between 77 %
    /// and 82 %. Where the frozen head is that good, the folds' few images of gain do not carry over, so the minutes
    /// are not spent (`--fine-tune` still insists).
    public static let roomBelow = 0.80
    /// The time budget: ten minutes.
    public static let budgetSeconds = 600.0
    /// `roomBelow` in whole percent (80), as texts give it.
    public static var roomBelowPercent: Int { Int((roomBelow * 100).rounded()) }
    /// `budgetSeconds` in whole minutes (10), as texts give it.
    public static var budgetMinutes: Int { Int(budgetSeconds / 60) }
    /// A fold's speed per thread, images per second through the trained top and the frozen layers below (default
    /// depth, augmentation on): 15 measured on the slowest 2-core machine this project has timed (the folds of a
    /// 250-image run at once, one thread each).
    public static let foldImagesPerSecondPerThread = 15.0
    /// A refit's speed per thread: 40 images/s on 2 threads measured in the same run (no held-out scoring).
    public static let refitImagesPerSecondPerThread = 20.0

    /// The estimated seconds of fine-tuning `images` training images for `epochs` epochs over `splits` held-out
    /// splits plus `refits` refits, on `threads` threads.
    public static func estimatedSeconds(images: Int, epochs: Int, splits: Int, refits: Int, threads: Int) -> Double {
        let passes = Double(images * epochs)
        return passes * (Double(splits) / foldImagesPerSecondPerThread + Double(refits) / refitImagesPerSecondPerThread)
            / Double(max(1, threads))
    }

    /// After a plain `train` (no fine-tuning asked for): a hint when the frozen head leaves the room the automatic
    /// choice fine-tunes in, else nil (nil too without a held-out accuracy). `choice` is what `choose` makes of the
    /// same data with the default settings: below the room threshold it declines only over the time budget, and
    /// then the hint is to insist on fine-tuning, with the estimate, instead.
    public static func hint(after choice: TrainingReport.FineTuningChoice, frozenHeldOutAccuracy: Double?) -> TrainingReport.FineTuningHint? {
        guard let accuracy = frozenHeldOutAccuracy, accuracy < roomBelow else { return nil }
        let premise =
            "hint: the frozen head's held-out accuracy is \(String(format: "%.1f", accuracy * 100)) %, below "
            + "\(roomBelowPercent) %, where fine-tuning has paid: "
        if !choice.fineTunes {
            let minutes = Int((choice.estimatedSeconds / 60).rounded())
            return .init(
                premise: premise,
                remedy: "fine-tuning tries it when asked for (about \(minutes) minutes by the automatic choice's estimate, over its budget)",
                hint: .fineTuneOverBudget, estimatedMinutes: minutes)
        }
        return .init(
            premise: premise, remedy: "the automatic choice tries it (minutes, not seconds)", hint: .fineTuneAutomatically,
            estimatedMinutes: Int((choice.estimatedSeconds / 60).rounded()))
    }

    /// Whether to fine-tune, and why in one line.
    public static func choose(
        frozenHeldOutAccuracy: Double?, images: Int, epochs: Int, splits: Int, refits: Int,
        threads: Int
    ) -> TrainingReport.FineTuningChoice {
        let seconds = estimatedSeconds(images: images, epochs: epochs, splits: splits, refits: refits, threads: threads)
        let time = "about \(Int(seconds.rounded())) s for \(images) images × \(epochs) epochs × \(splits + refits) runs on \(threads) threads"
        guard let accuracy = frozenHeldOutAccuracy else {
            return .init(fineTunes: false, reason: "not fine-tuned: nothing held out to judge the frozen head on", estimatedSeconds: seconds)
        }
        let frozen = "the frozen head's held-out accuracy is \(String(format: "%.1f", accuracy * 100)) %"
        if accuracy >= roomBelow {
            return .init(
                fineTunes: false, reason: "not fine-tuned: \(frozen), at least \(roomBelowPercent) % leaves little room",
                estimatedSeconds: seconds)
        }
        if seconds > budgetSeconds {
            return .init(
                fineTunes: false, reason: "not fine-tuned: \(time), over the \(budgetMinutes)-minute budget",
                estimatedSeconds: seconds, hint: .insistOnFineTuning)
        }
        return .init(
            fineTunes: true, reason: "fine-tuning: \(frozen), below \(roomBelowPercent) %, and \(time)",
            estimatedSeconds: seconds)
    }
}

// What would help after the automatic choice or a plain training, named for the remedy; a program words each with
// its own options (the CLI's `ErrorWording`).
extension ErrorHint {
    /// The automatic choice declined over its time budget: fine-tuning can still be insisted on.
    public static let insistOnFineTuning = ErrorHint("ClassifierTraining.insistOnFineTuning")
    /// A plain training left room: the automatic choice would fine-tune.
    public static let fineTuneAutomatically = ErrorHint("ClassifierTraining.fineTuneAutomatically")
    /// A plain training left room, but the automatic choice would decline over its budget: insisting tries it.
    public static let fineTuneOverBudget = ErrorHint("ClassifierTraining.fineTuneOverBudget")
    /// Fine-tuning was kept because the request asked to keep it whatever it gained.
    public static let keptFineTunedAsAsked = ErrorHint("ClassifierTraining.keptFineTunedAsAsked")
}
