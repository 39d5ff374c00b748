import Training

/// Everything a training run found out, as `train --report` writes it and as the model file carries it.
///
/// Accuracies are fractions from 0 to 1. Timings are kept out of the model file's copy, so the same data, seed
/// and machine give a byte-identical model.
public struct TrainingReport: Sendable, Codable, Equatable {
    /// One split's headline numbers.
    public struct SplitSummary: Sendable, Codable, Equatable {
        /// Fraction correct, 0 to 1 (0 when the split is empty).
        public var accuracy: Double
        /// Images evaluated.
        public var count: Int
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
        public var misclassified: [Misclassified]
    }

    /// The settings the run used (after defaults), so it can be repeated.
    public struct Settings: Sendable, Codable, Equatable {
        public var seed: UInt64
        public var validationFraction: Double
        public var validationSource: String
        public var l2: Double
        public var l2Chosen: Bool
        /// Validation accuracy for each candidate strength, when the strength was chosen.
        public var l2Grid: [Double]
        public var l2ValidationAccuracies: [Double]
        public var maxIterations: Int
        public var classWeighting: String
        public var iterations: Int
        public var converged: Bool
        public var preprocessing: String
        public var backbone: String
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
    }

    /// Seconds spent per phase.
    public struct Timings: Sendable, Codable, Equatable {
        public var scanning: Double
        public var features: Double
        public var training: Double
        public var total: Double
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
    public var unreadable: [Problem]
    public var warnings: [String]
    public var timings: Timings?
}
