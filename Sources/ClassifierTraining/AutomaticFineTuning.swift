/// The choice `train --fine-tune-auto` makes after the frozen head is chosen: fine-tune only when the frozen head
/// leaves room and the data is small enough to finish within the time budget.
///
/// - Room: the frozen head's cross-validated (held-out) accuracy is below `roomBelow`; above it there are too few
///   errors left for a held-out decision to see a gain.
/// - Time: `images × epochs × (splits + refits)` image-steps (every split trains and scores about one pass over the
///   images per epoch, each refit one more) at `imagesPerSecondPerThread × threads` must fit in `budgetSeconds`.
public enum AutomaticFineTuning {
    /// Held-out accuracy of the frozen head from which fine-tuning is not tried.
    public static let roomBelow = 0.95
    /// The time budget: ten minutes.
    public static let budgetSeconds = 600.0
    /// Fine-tuning's speed per thread, images per second through the trained top and the frozen layers below
    /// (default depth, augmentation on), as measured on this project's 2-core machine.
    public static let imagesPerSecondPerThread = 12.0

    /// The estimated seconds of fine-tuning `images` training images for `epochs` epochs over `splits` held-out
    /// splits plus `refits` refits, on `threads` threads.
    public static func estimatedSeconds(images: Int, epochs: Int, splits: Int, refits: Int = 1, threads: Int) -> Double {
        Double(images * epochs * (splits + refits)) / (imagesPerSecondPerThread * Double(max(1, threads)))
    }

    /// Whether to fine-tune, and why in one line.
    public static func choose(frozenHeldOutAccuracy: Double?, images: Int, epochs: Int, splits: Int, refits: Int = 1,
                              threads: Int) -> TrainingReport.FineTuningChoice {
        let seconds = estimatedSeconds(images: images, epochs: epochs, splits: splits, refits: refits, threads: threads)
        let time = "about \(Int(seconds.rounded())) s for \(images) images × \(epochs) epochs × \(splits + refits) runs on \(threads) threads"
        guard let accuracy = frozenHeldOutAccuracy else {
            return .init(fineTunes: false, reason: "not fine-tuned: nothing held out to judge the frozen head on", estimatedSeconds: seconds)
        }
        let frozen = "the frozen head's held-out accuracy is \(String(format: "%.1f", accuracy * 100)) %"
        if accuracy >= roomBelow {
            return .init(fineTunes: false, reason: "not fine-tuned: \(frozen), at least \(Int(roomBelow * 100)) % leaves little room",
                         estimatedSeconds: seconds)
        }
        if seconds > budgetSeconds {
            return .init(fineTunes: false, reason: "not fine-tuned: \(time), over the \(Int(budgetSeconds / 60))-minute budget (use --fine-tune to insist)",
                         estimatedSeconds: seconds)
        }
        return .init(fineTunes: true, reason: "fine-tuning: \(frozen), below \(Int(roomBelow * 100)) %, and \(time)",
                     estimatedSeconds: seconds)
    }
}
