import ClassifierTraining
import DataAudit

/// What `workbench doctor --json` prints: the findings, each list most certain first, and the facts and rules they
/// came from.
public struct DoctorReport: Sendable, Encodable {
    /// Pictures likely in the wrong folder (`ConfidentLearning`), lowest self-confidence first.
    public var labelIssues: [LabelIssue]
    /// Exact copies (same bytes) first, then near-copies by similarity; `leak` marks copies across splits.
    public var duplicates: [Duplicate]
    /// Pictures far from all others, highest score first.
    public var outliers: [Outlier]
    /// Pictures per label and split.
    public var labels: [TrainingReport.LabelCounts]
    /// Today's dataset warnings as lines: identical files across splits, unbalanced labels, files that are no pictures.
    public var warnings: [String]
    /// Files that could not be read, and why.
    public var unreadable: [TrainingReport.Problem]
    /// The rules the findings were made with.
    public var rules: Rules
    /// The out-of-sample probabilities the label issues were found from, when asked for (for a comparison with
    /// another implementation on the same numbers).
    public var outOfSample: OutOfSample?

    /// The constants and measured distributions behind the findings.
    public struct Rules: Sendable, Encodable {
        /// How the out-of-sample probabilities were made.
        public var probabilities: String
        /// The head's L2 strength.
        public var l2: Double
        /// The dataset's median cosine distance to a picture's nearest neighbour.
        public var medianNearestDistance: Double
        /// The largest cosine distance called a near-copy (`NearCopyRule`).
        public var nearCopyDistance: Double
        /// The outlier score from which a picture is listed.
        public var outlierCut: Double
        /// Neighbours per picture behind the outlier score.
        public var neighbours: Int
    }

    /// Every picture's out-of-sample probabilities.
    public struct OutOfSample: Sendable, Encodable {
        /// The model's labels, the columns of `probabilities`.
        public var labels: [String]
        public var paths: [String]
        public var splits: [String]
        /// Each picture's folder label, an index into `labels`.
        public var truths: [Int]
        /// One row per picture.
        public var probabilities: [[Float]]
    }

    /// Counts of each kind of finding, for the summary line.
    public var counts: (labelIssues: Int, exactCopies: Int, nearCopies: Int, leaks: Int, outliers: Int) {
        (
            labelIssues.count, duplicates.filter { $0.kind == .exact }.count, duplicates.filter { $0.kind == .near }.count,
            duplicates.filter(\.leak).count, outliers.count
        )
    }
}
