/// How `--fine-tune` trains a detector after its frozen head: for how long and how fast. The batch size, seed and
/// threads are the head's (`DetectorHeadSchedule`).
public struct DetectorFineTuningSettings: Sendable, Equatable, Codable {
    /// Passes over the training pictures (each sees every picture once, through one of its views).
    public var epochs: Int = 10
    /// AdamW's peak rate for the head. The head starts trained (LP-FT), so it gets less than its own run's
    /// 0.002, but more than the backbone, which starts from ImageNet's weights and is easier to spoil.
    public var headLearningRate: Double = 3e-4
    /// AdamW's peak rate for the blocks: the classifier's fine-tuning rate (`FineTuningSettings`).
    public var backboneLearningRate: Double = 1e-4
    /// Decoupled weight decay of convolution weights (scales and biases are not decayed), as the classifier's.
    public var weightDecay: Double = 0.01
    /// The share of all steps spent warming up (`FineTuning.LearningRateSchedule`, then a cosine to zero).
    public var warmupFraction: Double = 0.1

    /// The defaults.
    public init() {}

    /// The first setting out of bounds, as a sentence; nil when all are fine.
    public var problem: String? {
        if !(1...1000).contains(epochs) { return "fine-tuning epochs must be from 1 to 1000, got \(epochs)" }
        for (name, rate) in [("head", headLearningRate), ("backbone", backboneLearningRate)] where !(rate > 0 && rate <= 1) {
            return "the \(name) learning rate must be above 0 and at most 1, got \(rate)"
        }
        if !(weightDecay >= 0 && weightDecay < 1) { return "the weight decay must be at least 0 and below 1, got \(weightDecay)" }
        if !(warmupFraction >= 0 && warmupFraction <= 1) { return "the warm-up share must be from 0 to 1, got \(warmupFraction)" }
        return nil
    }
}
