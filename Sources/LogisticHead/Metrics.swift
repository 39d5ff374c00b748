/// Counts of (true class, predicted class) pairs: rows are the truth, columns the prediction.
public struct ConfusionMatrix: Sendable, Equatable, Codable {
    /// Number of classes.
    public private(set) var classCount: Int
    /// `counts[truth][predicted]`.
    public private(set) var counts: [[Int]]

    /// An empty matrix for `classCount` classes.
    public init(classCount: Int) {
        precondition(classCount >= 0, "ConfusionMatrix: negative class count")
        self.classCount = classCount
        self.counts = [[Int]](repeating: [Int](repeating: 0, count: classCount), count: classCount)
    }

    /// A matrix filled from parallel lists of true and predicted classes.
    public init(classCount: Int, truths: [Int], predictions: [Int]) {
        precondition(truths.count == predictions.count, "ConfusionMatrix: truths and predictions differ in length")
        self.init(classCount: classCount)
        for (truth, predicted) in zip(truths, predictions) { add(truth: truth, predicted: predicted) }
    }

    /// Decodes a matrix, rejecting counts that are not `classCount × classCount` non-negative numbers.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let classCount = try container.decode(Int.self, forKey: .classCount)
        let counts = try container.decode([[Int]].self, forKey: .counts)
        guard classCount >= 0, counts.count == classCount,
            counts.allSatisfy({ $0.count == classCount && $0.allSatisfy { $0 >= 0 } })
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .counts, in: container,
                debugDescription: "counts must be \(classCount) × \(classCount) non-negative numbers")
        }
        self.classCount = classCount
        self.counts = counts
    }

    /// Counts one sample.
    public mutating func add(truth: Int, predicted: Int) {
        precondition(
            (0..<classCount).contains(truth) && (0..<classCount).contains(predicted),
            "ConfusionMatrix: class index out of range")
        counts[truth][predicted] += 1
    }

    /// Number of samples counted.
    public var total: Int { counts.reduce(0) { $0 + $1.reduce(0, +) } }

    /// Fraction of samples on the diagonal; 0 for an empty matrix.
    public var accuracy: Double {
        let total = self.total
        guard total > 0 else { return 0 }
        return Double((0..<classCount).reduce(0) { $0 + counts[$1][$1] }) / Double(total)
    }

    /// Samples whose true class is each class (row sums), `[classCount]`.
    public var support: [Int] { counts.map { $0.reduce(0, +) } }

    /// Samples predicted as each class (column sums), `[classCount]`.
    public var predictedCounts: [Int] {
        (0..<classCount).map { column in counts.reduce(0) { $0 + $1[column] } }
    }

    /// Per class, correct predictions of it over all predictions of it; 0 for a class never predicted
    /// (scikit-learn's `zero_division=0`).
    public var precision: [Double] {
        let predicted = predictedCounts
        return (0..<classCount).map { predicted[$0] > 0 ? Double(counts[$0][$0]) / Double(predicted[$0]) : 0 }
    }

    /// Per class, correct predictions of it over its support; 0 for a class with no samples.
    public var recall: [Double] {
        let support = self.support
        return (0..<classCount).map { support[$0] > 0 ? Double(counts[$0][$0]) / Double(support[$0]) : 0 }
    }

    /// Per class, the harmonic mean of precision and recall; 0 when both are 0.
    public var f1: [Double] {
        zip(precision, recall).map { precision, recall in
            precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
        }
    }

    /// Unweighted mean of `precision` over all classes (classes without samples count as 0, as in
    /// scikit-learn's macro average over a given label list); 0 with no classes.
    public var macroPrecision: Double { mean(precision) }
    /// Unweighted mean of `recall` over all classes.
    public var macroRecall: Double { mean(recall) }
    /// Unweighted mean of the per-class `f1` (not the F1 of the macro precision and recall).
    public var macroF1: Double { mean(f1) }

    /// All the numbers above in one Codable value, for JSON reports.
    public var summary: ClassificationMetrics {
        ClassificationMetrics(
            accuracy: accuracy, precision: precision, recall: recall, f1: f1, support: support,
            macroPrecision: macroPrecision, macroRecall: macroRecall, macroF1: macroF1)
    }

    private func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }
}

/// The metrics derived from a `ConfusionMatrix`, stored (rather than computed) so they encode to JSON.
public struct ClassificationMetrics: Sendable, Equatable, Codable {
    /// Fraction of correct predictions.
    public var accuracy: Double
    /// Per-class precision, `[classCount]`.
    public var precision: [Double]
    /// Per-class recall, `[classCount]`.
    public var recall: [Double]
    /// Per-class F1, `[classCount]`.
    public var f1: [Double]
    /// Per-class number of true samples, `[classCount]`.
    public var support: [Int]
    /// Mean precision over classes.
    public var macroPrecision: Double
    /// Mean recall over classes.
    public var macroRecall: Double
    /// Mean F1 over classes.
    public var macroF1: Double
}
