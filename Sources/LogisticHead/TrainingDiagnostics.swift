/// A usual mistake a training run's numbers reveal, worded for the person who trained.
public enum TrainingWarning: Sendable, Equatable, CustomStringConvertible {
    /// Held-out accuracy far below training accuracy.
    case overfitting(trainingAccuracy: Double, heldOutAccuracy: Double)
    /// Labels with fewer than `TrainingDiagnostics.minimumHeldOutPerLabel` held-out images (name, count).
    case fewHeldOutImages(labels: [String], counts: [Int])
    /// Most of `label`'s mistakes go to `other`: `share` of its held-out predictions.
    case confusedLabels(label: String, other: String, share: Double)
    /// Testing accuracy far below validation accuracy.
    case testingBelowValidation(validationAccuracy: Double, testingAccuracy: Double)

    /// One line for a person.
    public var description: String {
        func percent(_ value: Double) -> String { "\((value * 1000).rounded() / 10) %" }
        switch self {
        case .overfitting(let training, let heldOut):
            return "held-out accuracy \(percent(heldOut)) is far below training accuracy \(percent(training)): "
                + "the model fits its training images much better than new ones; more images per label help"
        case .fewHeldOutImages(let labels, let counts):
            let list = zip(labels, counts).map { "\($0) (\($1))" }.joined(separator: ", ")
            return "fewer than \(TrainingDiagnostics.minimumHeldOutPerLabel) held-out images for \(list): "
                + "accuracy estimates for \(labels.count == 1 ? "this label" : "these labels") are too noisy to trust"
        case .confusedLabels(let label, let other, let share):
            return "'\(label)' is mostly mistaken for '\(other)' (\(percent(share)) of its held-out images): "
                + "more images that tell the two apart help"
        case .testingBelowValidation(let validation, let testing):
            return "testing accuracy \(percent(testing)) is far below validation accuracy \(percent(validation)): "
                + "the testing images seem to differ from the training images (source, style, framing?)"
        }
    }
}

/// Turns a run's accuracies and held-out confusion into `TrainingWarning`s.
///
/// Each rule asks for a gap that is both large and beyond what sampling noise explains, so that a clean dataset
/// stays silent: two standard errors of the difference, and at least `largeGap` (overfitting: `overfittingGap`).
public enum TrainingDiagnostics {
    /// Held-out images per label below which its estimate is called noisy.
    public static let minimumHeldOutPerLabel = 10
    /// Training minus held-out accuracy that counts as overfitting. Frozen features with a linear head often fit
    /// training images perfectly while holding 80–90 % out, which is not worth a warning.
    public static let overfittingGap = 0.2
    /// Validation minus testing accuracy that counts as "far below".
    public static let largeGap = 0.1
    /// Share of a label's held-out images going to one other label that counts as "mostly mistaken for".
    public static let confusionShare = 0.2

    /// What the held-out (validation) predictions show.
    public struct HeldOut: Sendable {
        /// Fraction correct.
        public var accuracy: Double
        /// Distinct images held out.
        public var count: Int
        /// Distinct held-out images per label, `[labels.count]`.
        public var countsPerLabel: [Int]
        /// Confusion counts of all held-out predictions (rows truth, columns prediction); with repeated
        /// cross-validation each image counts once per repeat.
        public var confusion: [[Int]]

        /// Creates the summary.
        public init(accuracy: Double, count: Int, countsPerLabel: [Int], confusion: [[Int]]) {
            self.accuracy = accuracy
            self.count = count
            self.countsPerLabel = countsPerLabel
            self.confusion = confusion
        }
    }

    /// The warnings, in a fixed order: overfitting, few held-out images, confused labels (largest share first, at
    /// most three), testing below validation.
    public static func warnings(
        labels: [String], trainingAccuracy: Double, heldOut: HeldOut?,
        testing: (accuracy: Double, count: Int)?
    ) -> [TrainingWarning] {
        var warnings: [TrainingWarning] = []
        guard let heldOut, heldOut.count > 0 else { return warnings }
        let gap = trainingAccuracy - heldOut.accuracy
        if gap >= overfittingGap && gap > 2 * standardError(heldOut.accuracy, heldOut.count) {
            warnings.append(.overfitting(trainingAccuracy: trainingAccuracy, heldOutAccuracy: heldOut.accuracy))
        }
        let few = labels.indices.filter { heldOut.countsPerLabel[$0] < minimumHeldOutPerLabel }
        if !few.isEmpty {
            warnings.append(.fewHeldOutImages(labels: few.map { labels[$0] }, counts: few.map { heldOut.countsPerLabel[$0] }))
        }
        var confused: [(label: Int, other: Int, share: Double)] = []
        for label in labels.indices where labels.count >= 2 {
            let row = heldOut.confusion[label]
            let total = row.reduce(0, +)
            let errors = total - row[label]
            guard total > 0, errors > 0 else { continue }
            // The other label taking the most of this label's images (the first on ties).
            var other = label == 0 ? 1 : 0
            for candidate in labels.indices where candidate != label && row[candidate] > row[other] { other = candidate }
            let share = Double(row[other]) / Double(total)
            // "Mostly": most of the errors, a real share of the label, and more than one image's worth.
            let distinctImages = Double(row[other]) * Double(heldOut.countsPerLabel[label]) / Double(total)
            if share >= confusionShare && 2 * row[other] > errors && distinctImages >= 2 {
                confused.append((label, other, share))
            }
        }
        for item in confused.sorted(by: { $0.share > $1.share || ($0.share == $1.share && $0.label < $1.label) }).prefix(3) {
            warnings.append(.confusedLabels(label: labels[item.label], other: labels[item.other], share: item.share))
        }
        if let testing, testing.count > 0 {
            let drop = heldOut.accuracy - testing.accuracy
            let noise = (variance(heldOut.accuracy, heldOut.count) + variance(testing.accuracy, testing.count)).squareRoot()
            if drop >= largeGap && drop > 2 * noise {
                warnings.append(.testingBelowValidation(validationAccuracy: heldOut.accuracy, testingAccuracy: testing.accuracy))
            }
        }
        return warnings
    }

    /// `p(1 − p)/n`, with `p` kept off 0 and 1 by half an image so that a perfect score still has some spread.
    private static func variance(_ accuracy: Double, _ count: Int) -> Double {
        let n = Double(max(count, 1))
        let p = min(max(accuracy, 0.5 / n), 1 - 0.5 / n)
        return p * (1 - p) / n
    }

    private static func standardError(_ accuracy: Double, _ count: Int) -> Double {
        variance(accuracy, count).squareRoot()
    }
}
