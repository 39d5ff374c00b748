/// Pictures whose folder label is likely wrong, by confident learning (Northcutt, Jiang & Chuang, "Confident
/// Learning: Estimating Uncertainty in Dataset Labels", JAIR 70, 2021, section 3).
///
/// Input: out-of-sample probabilities `p̂(j; x)` `[count, classCount]` (from a model that did not see `x`) and the
/// given labels `ỹ`. Per label `j` the threshold is the mean self-confidence of the pictures given `j`:
/// `t_j = mean_{x: ỹ(x) = j} p̂(j; x)`. A picture's likely true label is the most probable of the labels it reaches
/// the threshold of, `y*(x) = argmax_{j: p̂(j; x) ≥ t_j} p̂(j; x)`; a picture that reaches no threshold has none and is
/// never flagged (it fits no label well, so it is not forced into one). The confident joint `C[ỹ][y*]` counts the
/// pictures with a likely label; its off-diagonal cells are the label issues, ranked by self-confidence
/// `p̂(ỹ; x)` from the lowest (most certain) up.
public enum ConfidentLearning {
    /// Slack below a threshold that still counts as reaching it: a label with one picture has that picture's
    /// probability as its threshold, which Float rounding must not put out of reach.
    public static let thresholdSlack: Float = 1e-6

    /// What confident learning found.
    public struct Outcome: Sendable, Equatable {
        /// `t_j` per label; `+infinity` for a label no picture is given (nothing can reach it).
        public var thresholds: [Float]
        /// `[classCount, classCount]`, row-major: `joint[given · classCount + likely]` pictures.
        public var joint: [Int]
        /// Each picture's likely label `y*`, or nil when it reaches no threshold.
        public var likelyLabels: [Int?]
        /// The pictures in an off-diagonal cell of `joint`, lowest self-confidence first (equal: lower index first).
        public var issues: [Int]
    }

    /// The per-label thresholds `t_j`.
    public static func thresholds(probabilities: [Float], labels: [Int], classCount: Int) -> [Float] {
        var sums = [Double](repeating: 0, count: classCount), counts = [Int](repeating: 0, count: classCount)
        for (row, label) in labels.enumerated() {
            sums[label] += Double(probabilities[row * classCount + label])
            counts[label] += 1
        }
        return (0..<classCount).map { counts[$0] > 0 ? Float(sums[$0] / Double(counts[$0])) : .infinity }
    }

    /// Runs confident learning over `labels.count` pictures.
    public static func find(probabilities: [Float], labels: [Int], classCount: Int) -> Outcome {
        precondition(probabilities.count == labels.count * classCount, "ConfidentLearning: [count, classCount] probabilities")
        precondition(labels.allSatisfy { (0..<classCount).contains($0) }, "ConfidentLearning: label out of range")
        let thresholds = thresholds(probabilities: probabilities, labels: labels, classCount: classCount)
        var joint = [Int](repeating: 0, count: classCount * classCount)
        var likelyLabels: [Int?] = []
        likelyLabels.reserveCapacity(labels.count)
        var issues: [Int] = []
        for (row, given) in labels.enumerated() {
            var likely: Int?
            for label in 0..<classCount {
                let probability = probabilities[row * classCount + label]
                guard probability >= thresholds[label] - thresholdSlack else { continue }
                if let best = likely, probabilities[row * classCount + best] >= probability { continue }
                likely = label
            }
            likelyLabels.append(likely)
            guard let likely else { continue }
            joint[given * classCount + likely] += 1
            if likely != given { issues.append(row) }
        }
        issues.sort { first, second in
            let a = probabilities[first * classCount + labels[first]], b = probabilities[second * classCount + labels[second]]
            return a < b || (a == b && first < second)
        }
        return Outcome(thresholds: thresholds, joint: joint, likelyLabels: likelyLabels, issues: issues)
    }
}
