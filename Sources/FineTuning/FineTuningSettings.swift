import Models

/// How a fine-tuning run trains: what trains, for how long, and how fast.
public struct FineTuningSettings: Sendable, Equatable {
    /// The top MBConv blocks that train (with the final 1×1 convolution and the head, which always do).
    /// 8 is the last three stages (blocks 8–15): the depth the prototype measured best on hard data
    /// (77.8 % against 74.5 % with the last block alone on emoticons) and, at 5.3 ms per image and step on two
    /// threads, well inside the time budget.
    public var trainedBlocks: Int = 8
    /// Passes over the training images.
    public var epochs: Int = 10
    /// Images per step.
    public var batchSize: Int = 32
    /// Peak learning rate of the backbone's parameters. 1e-4 measured best of 3e-5, 1e-4 and 3e-4 on the
    /// drawings sample (3e-4 lost held-out accuracy after one epoch; 3e-5 barely moved).
    public var backboneLearningRate: Double = 1e-4
    /// Peak learning rate of the classifier's (the head starts fitted, so it needs no larger rate).
    public var headLearningRate: Double = 1e-4
    /// How much of the fine-tuned weights the model keeps: each trained parameter becomes start + w · (trained −
    /// start), the start being the pretrained network with the linear-probe head. 1 (the default) is plain
    /// fine-tuning; below 1 is WiSE-FT's weight-space ensemble, which on small data can keep what the start knew.
    /// Every epoch is scored, chosen and kept as this mix.
    public var fineTunedWeight: Double = 1
    /// How many refits on all training images (after the held-out splits chose the epoch) are averaged into the
    /// kept model, each from the same start with its own seed (`seed`, `seed + 1`, ...: the batch order) and its own
    /// augmented views (`ClassifierTraining`'s `ShiftedEpochInputs`): 1 is a single refit; more is a model soup
    /// (`TrainableClassifier.averaged`), which varies less from seed to seed at the cost of one more refit each.
    /// 3 became the default after it matched or beat a single refit on held-out images the folds never saw
    /// (`scripts/accuracy/finetune-outer-split.sh`, 18 runs: +64 outer images over the frozen heads against +60,
    /// worst run 0 against −1).
    public var refits: Int = 3
    /// Weight decay of convolution and dense weights (scales and biases are not decayed); decoupled for AdamW.
    public var weightDecay: Double = 0.01
    /// ε of the smoothed targets.
    public var labelSmoothing: Double = 0.1
    /// The share of all steps spent warming up (at least one step when positive).
    public var warmupFraction: Double = 0.1
    /// The update rule.
    public var optimizer: OptimizerKind = .adamWDefaults
    /// Seeds the order of the training images in each epoch.
    public var seed: UInt64 = 42
    /// Threads that split each batch (and the frozen layers' images).
    public var threads: Int = 1
    /// Whether the kept model must beat the frozen head on the held-out images. When false, the best trained epoch
    /// is kept even if the untrained start scored higher (`train --keep-fine-tuned`).
    public var requiresGain: Bool = true

    /// The default settings.
    public init() {}

    /// The largest `trainedBlocks`: every MBConv block (the stem stays frozen).
    public static let maximumTrainedBlocks = EfficientNetLite0Architecture.blocks.count
    /// Bounds the options are checked against; outside them a value is a typo, not a setting.
    public static let epochRange = 1...1000
    /// Images per step.
    public static let batchSizeRange = 1...1024
    /// Learning rates.
    public static let learningRateRange = 1e-7...1.0
    /// Refits averaged into the kept model.
    public static let refitRange = 1...8

    /// The index of the first trained block.
    public var firstTrainedBlock: Int { Self.maximumTrainedBlocks - trainedBlocks }

    /// The first setting out of bounds, as a sentence; nil when all are fine.
    public var problem: String? { outOfRange?.description }

    /// The first setting out of bounds, as facts (which setting, what it must be, what it is) for a caller to word
    /// with its own names (the CLI with its options); nil when all are fine. The one place these bounds are checked.
    public var outOfRange: SettingProblem? {
        func problem(_ setting: Setting, _ requirement: String, _ value: some CustomStringConvertible) -> SettingProblem {
            SettingProblem(setting: setting, requirement: requirement, value: value.description)
        }
        if !(1...Self.maximumTrainedBlocks).contains(trainedBlocks) {
            return problem(.trainedBlocks, "from 1 to \(Self.maximumTrainedBlocks)", trainedBlocks)
        }
        if !Self.epochRange.contains(epochs) { return problem(.epochs, "from 1 to \(Self.epochRange.upperBound)", epochs) }
        if !Self.batchSizeRange.contains(batchSize) {
            return problem(.batchSize, "from 1 to \(Self.batchSizeRange.upperBound)", batchSize)
        }
        let rates = "from \(Self.learningRateRange.lowerBound) to \(Self.learningRateRange.upperBound)"
        // The head's first: a single rate given for both is then named as the head's (the CLI's --learning-rate).
        for (setting, rate) in [(Setting.headLearningRate, headLearningRate), (.backboneLearningRate, backboneLearningRate)]
        where !Self.learningRateRange.contains(rate) {
            return problem(setting, rates, rate)
        }
        if !(fineTunedWeight > 0 && fineTunedWeight <= 1) { return problem(.fineTunedWeight, "above 0 and at most 1", fineTunedWeight) }
        if !Self.refitRange.contains(refits) { return problem(.refits, "from 1 to \(Self.refitRange.upperBound)", refits) }
        if !(weightDecay >= 0 && weightDecay < 1) { return problem(.weightDecay, "at least 0 and below 1", weightDecay) }
        if !(labelSmoothing >= 0 && labelSmoothing < 1) { return problem(.labelSmoothing, "at least 0 and below 1", labelSmoothing) }
        if !(warmupFraction >= 0 && warmupFraction <= 1) { return problem(.warmupFraction, "from 0 to 1", warmupFraction) }
        if threads < 1 { return problem(.threads, "at least 1", threads) }
        return nil
    }

    /// The settings whose bounds `outOfRange` checks.
    public enum Setting: Sendable, Equatable, CaseIterable {
        case trainedBlocks, epochs, batchSize, headLearningRate, backboneLearningRate, fineTunedWeight, refits
        case weightDecay, labelSmoothing, warmupFraction, threads

        /// The setting in the library's words, as a sentence begins ("the batch size").
        public var name: String {
            switch self {
            case .trainedBlocks: "the trained blocks"
            case .epochs: "epochs"
            case .batchSize: "the batch size"
            case .headLearningRate: "the head learning rate"
            case .backboneLearningRate: "the backbone learning rate"
            case .fineTunedWeight: "the fine-tuned weight"
            case .refits: "the refits"
            case .weightDecay: "the weight decay"
            case .labelSmoothing: "label smoothing"
            case .warmupFraction: "the warm-up share"
            case .threads: "threads"
            }
        }
    }

    /// A setting out of its bounds: "`name` must be `requirement`, got `value`".
    public struct SettingProblem: Sendable, Equatable, CustomStringConvertible {
        /// Which setting.
        public let setting: Setting
        /// What it must be: "from 1 to 1000", "above 0 and at most 1".
        public let requirement: String
        /// What it is, as Swift prints it.
        public let value: String

        /// A problem from its facts.
        public init(setting: Setting, requirement: String, value: String) {
            (self.setting, self.requirement, self.value) = (setting, requirement, value)
        }

        /// The problem worded with the library's name for the setting.
        public var description: String { "\(setting.name) must be \(requirement), got \(value)" }
    }
}
