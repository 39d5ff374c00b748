import Augmentation
import FileFormats
import ImageCodecs
import LogisticHead

/// Everything a training run found out, as `train --report` writes it and as the model file carries it.
///
/// Accuracies are fractions from 0 to 1. Timings are kept out of the model file's copy, so the same data, seed
/// and machine give a byte-identical model.
public struct TrainingReport: Sendable, Codable, Equatable {
    /// One split's headline numbers.
    public struct SplitSummary: Sendable, Codable, Equatable {
        /// Fraction correct, 0 to 1 (0 when the split is empty).
        public var accuracy: Double
        /// Images evaluated (distinct images: with repeated cross-validation each is predicted once per repeat).
        public var count: Int
        /// The Wilson 95 % interval of `accuracy` over `count` images (absent in reports of older versions).
        public var interval: AccuracyInterval?
        /// Predictions behind `accuracy` when it exceeds `count` (repeated cross-validation).
        public var predictions: Int?
    }

    /// One label's metrics on a split.
    public struct LabelMetrics: Sendable, Codable, Equatable {
        public var label: String
        public var precision: Double
        public var recall: Double
        public var f1: Double
        /// Images of this label in the split.
        public var support: Int
    }

    /// A file the model got wrong.
    public struct Misclassified: Sendable, Codable, Equatable {
        public var path: String
        public var truth: String
        public var predicted: String
        /// The predicted label's probability.
        public var confidence: Double
    }

    /// A split's full evaluation.
    public struct SplitEvaluation: Sendable, Codable, Equatable {
        public var accuracy: Double
        public var count: Int
        /// Rows are true labels, columns predicted labels, in `labels` order.
        public var confusionMatrix: [[Int]]
        public var perLabel: [LabelMetrics]
        public var macroF1: Double
        /// Each misclassified file once (with repeated cross-validation, its first wrong prediction).
        public var misclassified: [Misclassified]
        /// Expected calibration error of the probabilities, 15 equal-width bins (absent in older reports).
        public var expectedCalibrationError: Double?
    }

    /// How the L2 strength was chosen: the held-out method and every candidate's score.
    public struct Selection: Sendable, Codable, Equatable {
        /// e.g. "5-fold cross-validation, 5 repeats", "stratified 10 % held out", "validation folder".
        public var method: String
        /// Folds and repeats of cross-validation; nil otherwise.
        public var folds: Int?
        public var repeats: Int?
        /// Distinct images held out, and the predictions made on them (more with repeats).
        public var heldOutImages: Int
        public var heldOutPredictions: Int
        /// Every strength tried, in grid order, with its held-out accuracy and log-loss.
        public var grid: [L2Candidate]
        /// The strength chosen.
        public var chosen: Double
        /// Whether the final model was refitted on all training images (held-out ones included) after choosing.
        public var refitOnAllTrainingImages: Bool
    }

    /// The temperature and how calibrated the probabilities are before and after it.
    public struct Calibration: Sendable, Codable, Equatable {
        /// Logits are divided by this before the softmax (1 changes nothing).
        public var temperature: Double
        /// Equal-width bins of the expected calibration error.
        public var bins: Int
        /// Expected calibration error of the held-out predictions with temperature 1 and with `temperature`.
        public var heldOutBefore: Double
        public var heldOutAfter: Double
        /// The same on the testing images; nil without them.
        public var testingBefore: Double?
        public var testingAfter: Double?
    }

    /// Answering only above a confidence threshold, measured on the held-out predictions (calibrated).
    public struct Thresholds: Sendable, Codable, Equatable {
        /// Share answered and their accuracy for thresholds 0.30, 0.35, …, 0.95.
        public var table: [ThresholdOutcome]
        /// The precision asked for with `--target-precision`, if any.
        public var targetPrecision: Double?
        /// The lowest threshold reaching it, stored in the model; nil when none does or none was asked.
        public var chosen: Double?
    }

    /// The settings the run used (after defaults), so it can be repeated.
    public struct Settings: Sendable, Codable, Equatable {
        public var seed: UInt64
        /// The share of training images held out by a single split (0 for cross-validation and validation folders).
        public var validationFraction: Double
        /// Where the held-out predictions came from, for a person.
        public var validationSource: String
        public var l2: Double
        public var l2Chosen: Bool
        public var maxIterations: Int
        public var classWeighting: String
        public var iterations: Int
        public var converged: Bool
        public var preprocessing: String
        public var backbone: String
        /// Augmented views per training image the head was also fitted on (`train --augment`); nil for none.
        public var augmentedViews: Int? = nil
        /// The augmentations those views were made with (`AugmentationPolicy.describe`); nil for none.
        public var augmentation: String? = nil
    }

    /// Images per label and split.
    public struct LabelCounts: Sendable, Codable, Equatable {
        public var label: String
        public var training: Int
        public var validation: Int
        public var testing: Int
    }

    /// A file that could not be used, and why.
    public struct Problem: Sendable, Codable, Equatable {
        public var path: String
        public var reason: String

        /// A file and why it was left out.
        public init(path: String, reason: String) {
            (self.path, self.reason) = (path, reason)
        }
    }

    /// Seconds spent per phase.
    public struct Timings: Sendable, Codable, Equatable {
        public var scanning: Double
        public var features: Double
        /// Making the augmented views and their features; nil without views.
        public var augmentation: Double? = nil
        /// Choosing the strength (all held-out fits), part of `training`.
        public var selection: Double?
        public var training: Double
        /// Fine-tuning, rescoring every image with the fine-tuned backbone included; nil without it.
        public var fineTuning: Double?
        public var total: Double
    }

    /// What `train --fine-tune` did: depth, settings, every epoch, and the gain over the frozen head.
    public struct FineTuning: Sendable, Codable, Equatable {
        /// One epoch.
        public struct Epoch: Sendable, Codable, Equatable {
            /// From 1.
            public var epoch: Int
            /// Mean training loss (label-smoothed cross-entropy, as optimised).
            public var loss: Double
            /// Mean held-out cross-entropy, without smoothing.
            public var heldOutLoss: Double
            public var heldOutAccuracy: Double
            /// Wall-clock seconds; nil in the model file's copy, so equal runs give equal model files.
            public var seconds: Double?
        }

        /// The top MBConv blocks that trained (with the final 1×1 convolution and the head), and the first one's index.
        public var trainedBlocks: Int
        public var firstTrainedBlock: Int
        public var epochs: [Epoch]
        /// The epoch kept (best held-out accuracy), 0 when none beat the starting linear probe.
        public var bestEpoch: Int
        /// What was done to the training images each epoch; empty for none.
        public var augmentations: [String]
        /// Images trained on and held out (never trained on) to choose the epoch.
        public var trainingImages: Int
        public var heldOutImages: Int
        /// Held-out accuracy of the frozen head (the linear probe with the chosen L2) and of `bestTrainedEpoch`
        /// (the kept epoch when one was kept): what fine-tuning reached, never the untrained start's score.
        public var frozenHeldOutAccuracy: Double
        public var fineTunedHeldOutAccuracy: Double
        /// `fineTunedHeldOutAccuracy − frozenHeldOutAccuracy`.
        public var gain: Double
        /// Whether fine-tuning did not beat the frozen head (or diverged), so the model is the frozen one.
        public var keptFrozenModel: Bool
        /// The epoch `fineTunedHeldOutAccuracy` is from: the kept one, else the best by held-out accuracy (then
        /// loss) of those trained. Nil in reports written before it was recorded.
        public var bestTrainedEpoch: Int?
        /// The epoch whose loss was not finite or above 10 times the start's (`FineTuningLoop.isDiverging`): the run stopped there
        /// and kept the frozen model. Nil when it did not diverge.
        public var divergedAtEpoch: Int?
        public var batchSize: Int
        public var backboneLearningRate: Double
        public var headLearningRate: Double
        /// The share of the fine-tuned weights kept (`FineTuningSettings.fineTunedWeight`; below 1 the model is
        /// the WiSE-FT mix with the start); nil in older reports and when it is 1.
        public var fineTunedWeight: Double? = nil
        public var weightDecay: Double
        public var labelSmoothing: Double
        public var warmupFraction: Double
        /// e.g. "AdamW (β₁ 0.9, β₂ 0.999, ε 1e-08)".
        public var optimizer: String
        /// Threads that split each batch: with the seed, what makes a run repeatable bit for bit.
        public var threads: Int
        /// Each held-out split's numbers (three stratified folds below `FineTuningSplits.foldLimit` training images,
        /// else one share or the validation folder); nil in reports written before folds.
        public var folds: [Fold]? = nil
        /// How the frozen head and fine-tuning were compared, and what was kept; nil in older reports.
        public var decision: Decision? = nil
        /// The refit's training loss per epoch (all training images, the chosen epoch count): the first refit's, or
        /// the one that diverged; nil without a refit (a validation folder: the chosen epoch of the one run is the
        /// model, or the folds kept the frozen head).
        public var refitLosses: [Double]? = nil
        /// How many refits the kept model averages (`FineTuningSettings.refits`; `refitLosses` is the first's); nil
        /// for one.
        public var refits: Int? = nil

        /// "refitted on all 250 training images for 6 epochs", with "(the average of 3 refits with their own
        /// seeds)" for a soup.
        public func refitSummary(epochs: Int) -> String {
            "refitted on all \(trainingImages) training images for \(epochs) epochs"
                + (refits.map { " (the average of \($0) refits with their own seeds)" } ?? "")
        }

        /// One held-out split: the frozen head fitted on its training part, and fine-tuning from it.
        public struct Fold: Sendable, Codable, Equatable {
            public var trainingImages: Int
            public var heldOutImages: Int
            /// The frozen head's held-out accuracy and the chosen epoch's.
            public var frozenHeldOutAccuracy: Double
            public var fineTunedHeldOutAccuracy: Double
            /// Every epoch of this split (seconds nil in the model file's copy).
            public var epochs: [Epoch]
            /// The epoch this split diverged at, if it did.
            public var divergedAtEpoch: Int?
        }

        /// The decision (`FineTuning.FineTuningDecision`) and the plan it was made on.
        public struct Decision: Sendable, Codable, Equatable {
            /// "3 stratified folds", "stratified 20 % held out", "validation folder".
            public var method: String
            /// The chosen epoch (best pooled held-out accuracy; then lower loss, then earlier).
            public var epoch: Int
            /// Extra held-out images right over all splits, and the images they are out of.
            public var gainedImages: Int
            public var heldOutImages: Int
            /// The pooled gain (0 to 1) and the standard error of the per-split gains.
            public var meanGain: Double
            public var standardError: Double
            /// Whether fine-tuning was kept.
            public var keptFineTuned: Bool
            /// The rule's sentence.
            public var reason: String
            /// Whether the kept model was trained again on all training images for `epoch` epochs.
            public var refit: Bool
        }

        /// The kept epoch's held-out probabilities as the training network computed them (calibrated); nil when
        /// the frozen model was kept, or refitted (its held-out figures then come from the folds' models). `classify` on the written model gives the same within float rounding.
        public var heldOutPredictions: [HeldOutPrediction]?

        /// One held-out image's probabilities, in the labels' order.
        public struct HeldOutPrediction: Sendable, Codable, Equatable {
            public var path: String
            public var probabilities: [Double]
        }
    }

    public var labels: [String]
    public var training: SplitSummary
    public var validation: SplitSummary
    public var testing: SplitSummary
    public var counts: [LabelCounts]
    /// Full evaluations; testing's is nil without a testing folder, validation's without validation images.
    public var trainingEvaluation: SplitEvaluation
    public var validationEvaluation: SplitEvaluation?
    public var testingEvaluation: SplitEvaluation?
    public var settings: Settings
    /// How the strength was chosen; nil when it was given and nothing was held out.
    public var selection: Selection?
    /// The fitted temperature and calibration errors; nil without held-out images.
    public var calibration: Calibration?
    /// The confidence-threshold table; nil without held-out images.
    public var thresholds: Thresholds?
    public var unreadable: [Problem]
    /// Every warning: the dataset's and the run's (`diagnostics`).
    public var warnings: [String]
    /// What the numbers warn about (overfitting, noisy labels, confused labels, a testing set unlike training).
    public var diagnostics: [String]?
    public var timings: Timings?
    /// Fine-tuning's section; nil for a frozen-backbone run.
    public var fineTuning: FineTuning?
    /// What `train --fine-tune-auto` chose and why; nil when fine-tuning was asked for or not at all.
    public var fineTuningChoice: FineTuningChoice? = nil
    /// Without fine-tuning: a one-line hint when the frozen head leaves room for it (`AutomaticFineTuning.hint`).
    public var fineTuningHint: FineTuningHint? = nil

    /// The automatic choice of `train --fine-tune-auto` (`AutomaticFineTuning`).
    public struct FineTuningChoice: Sendable, Codable, Equatable {
        /// Whether it fine-tuned.
        public var fineTunes: Bool
        /// Why, in one line.
        public var reason: String
        /// The estimated seconds fine-tuning takes (folds and refit) at the assumed speed.
        public var estimatedSeconds: Double
        /// What would help when it declined over the budget (`ErrorHint.insistOnFineTuning`), for a program to word
        /// after `reason`; not stored (nil for a choice read back from a file).
        public var hint: ErrorHint? = nil

        private enum CodingKeys: String, CodingKey { case fineTunes, reason, estimatedSeconds }
    }

    /// The hint of a plain training that fine-tuning may pay. Stored (in the model file and `--report`) as one
    /// string, `text`; the premise, the remedy and its typed `hint` are there for a program to word the remedy
    /// with its own options, and only in memory (a hint read back from a file is its text alone).
    public struct FineTuningHint: Sendable, Codable, Equatable {
        /// Why fine-tuning may pay, ending with ": ".
        public var premise: String
        /// What would help, in the library's words.
        public var remedy: String
        /// The remedy, typed (`ErrorHint.fineTuneAutomatically`, `.fineTuneOverBudget`); nil when read from a file.
        public var hint: ErrorHint?
        /// The automatic choice's estimate of fine-tuning, in whole minutes.
        public var estimatedMinutes: Int

        /// A hint made of its parts.
        public init(premise: String, remedy: String, hint: ErrorHint?, estimatedMinutes: Int) {
            (self.premise, self.remedy, self.hint, self.estimatedMinutes) = (premise, remedy, hint, estimatedMinutes)
        }

        /// The premise and the remedy: the hint as files, reports and pages keep it.
        public var text: String { premise + remedy }

        /// Reads the stored text: all of it is the premise, nothing typed is known.
        public init(from decoder: any Decoder) throws {
            self.init(premise: try decoder.singleValueContainer().decode(String.self), remedy: "", hint: nil, estimatedMinutes: 0)
        }

        /// Writes `text`, one string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }
}
