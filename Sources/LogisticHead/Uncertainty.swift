/// A 95 % confidence interval for an accuracy, as fractions from 0 to 1.
public struct AccuracyInterval: Sendable, Equatable, Codable {
    /// Lower end.
    public var lower: Double
    /// Upper end.
    public var upper: Double

    /// Creates an interval.
    public init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
    }

    /// The interval as every report shows it, the text tables and the HTML pages alike, so they print the same
    /// numbers for one model: both ends in percent to the nearest tenth, "78.2–99.2 %" (21 of 22). Rounded to the
    /// nearest, not outward: outward rounding printed "78–100 %" for an interval that stops short of 100 %.
    public var percentText: String {
        String(format: "%.1f–%.1f %%", lower * 100, upper * 100)
    }
}

/// The Wilson score interval for a proportion (Wilson, 1927): unlike `p ± z·√(p(1−p)/n)` it stays inside [0, 1]
/// and keeps a sensible width at 0 % and 100 %, which small held-out sets reach often.
public enum WilsonInterval {
    /// The standard normal quantile for a two-sided 95 % interval.
    public static let z95 = 1.959963984540054

    /// The interval for an observed proportion `proportion` of `count` trials:
    /// `(p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n)`. With no trials, `[0, 1]`.
    public static func interval(proportion: Double, count: Int, z: Double = z95) -> AccuracyInterval {
        guard count > 0 else { return AccuracyInterval(lower: 0, upper: 1) }
        let n = Double(count), p = min(1, max(0, proportion)), zz = z * z
        let centre = (p + zz / (2 * n)) / (1 + zz / n)
        let half = z * (p * (1 - p) / n + zz / (4 * n * n)).squareRoot() / (1 + zz / n)
        return AccuracyInterval(lower: max(0, centre - half), upper: min(1, centre + half))
    }

    /// The interval for `successes` out of `trials`.
    public static func interval(successes: Int, trials: Int, z: Double = z95) -> AccuracyInterval {
        interval(proportion: trials > 0 ? Double(successes) / Double(trials) : 0, count: trials, z: z)
    }
}

/// What answering only above a confidence threshold gives: how many answers, how many of them right.
public struct ThresholdOutcome: Sendable, Equatable, Codable {
    /// The threshold: a prediction is answered when its confidence is at least this.
    public var threshold: Double
    /// Share of predictions answered, 0 to 1.
    public var answered: Double
    /// Accuracy (precision) of the answered predictions; nil when none is answered.
    public var accuracy: Double?

    /// Creates a row.
    public init(threshold: Double, answered: Double, accuracy: Double?) {
        self.threshold = threshold
        self.answered = answered
        self.accuracy = accuracy
    }
}

/// Thresholds on the top probability, measured on held-out predictions.
public enum ConfidenceThresholds {
    /// The thresholds a report lists: 0.30, 0.35, …, 0.95.
    public static let reported: [Double] = (6...19).map { Double($0) * 0.05 }

    /// Candidates for `lowestThreshold`: 0.00, 0.01, …, 0.99.
    public static let candidates: [Double] = (0...99).map { Double($0) / 100 }

    /// For each threshold, the share of `confidences` at or above it and the accuracy of those (`correct` says which
    /// predictions were right).
    public static func table(confidences: [Double], correct: [Bool], thresholds: [Double] = reported) -> [ThresholdOutcome] {
        precondition(confidences.count == correct.count, "ConfidenceThresholds: one flag per confidence")
        return thresholds.map { threshold in
            var answered = 0, right = 0
            for (confidence, isCorrect) in zip(confidences, correct) where isAnswered(confidence: confidence, threshold: threshold) {
                answered += 1
                if isCorrect { right += 1 }
            }
            return ThresholdOutcome(
                threshold: threshold,
                answered: confidences.isEmpty ? 0 : Double(answered) / Double(confidences.count),
                accuracy: answered > 0 ? Double(right) / Double(answered) : nil)
        }
    }

    /// Whether a prediction of `confidence` is answered under `threshold`: at or above it, with a Float32 rounding of
    /// slack so that a probability stored as Float equal to the threshold counts as reaching it.
    public static func isAnswered(confidence: Double, threshold: Double) -> Bool {
        confidence >= threshold - 1e-6
    }

    /// The lowest of `candidates` whose answered predictions are right at least a `precision` share of the time;
    /// nil when none reaches it (or there are no predictions).
    public static func lowestThreshold(
        reaching precision: Double, confidences: [Double], correct: [Bool],
        candidates: [Double] = candidates
    ) -> Double? {
        table(confidences: confidences, correct: correct, thresholds: candidates.sorted())
            .first { ($0.accuracy ?? -1) >= precision - 1e-12 }?.threshold
    }
}
