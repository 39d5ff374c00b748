/// Precision and recall of the boxes a detector reports at one score threshold: what a user of `detect
/// --min-score T` gets. Boxes are matched at IoU 0.5 by `GreedyMatching` (pycocotools' rule): matching goes by
/// falling score, so the boxes at or above a threshold are matched exactly as they are among all boxes, and one
/// matching serves every threshold.
public struct OperatingPoint: Sendable, Equatable {
    /// Boxes scoring at least this are reported.
    public var threshold: Double
    /// Reported boxes that match a ground-truth box.
    public var truePositives: Int
    /// Reported boxes that match none.
    public var falsePositives: Int
    /// Ground-truth boxes.
    public var groundTruthCount: Int

    /// The IoU a reported box needs with a ground-truth box to count as finding it.
    public static let matchingThreshold = 0.5

    /// A point from its counts.
    public init(threshold: Double, truePositives: Int, falsePositives: Int, groundTruthCount: Int) {
        self.threshold = threshold
        self.truePositives = truePositives
        self.falsePositives = falsePositives
        self.groundTruthCount = groundTruthCount
    }

    /// Boxes reported: true and false positives.
    public var reportedCount: Int { truePositives + falsePositives }

    /// True positives over reported boxes; nil when nothing is reported: undefined (pycocotools' −1), neither 1
    /// ("no box is wrong") nor 0, and left out of any mean.
    public var precision: Double? {
        reportedCount == 0 ? nil : Double(truePositives) / Double(reportedCount)
    }

    /// True positives over ground-truth boxes; 0 when there are none.
    public var recall: Double { groundTruthCount == 0 ? 0 : Double(truePositives) / Double(groundTruthCount) }

    /// The harmonic mean of precision and recall, `2·tp / (2·tp + fp + fn)`; 0 when there is nothing to find and
    /// nothing reported.
    public var f1: Double {
        let denominator = 2 * truePositives + falsePositives + (groundTruthCount - truePositives)
        return denominator == 0 ? 0 : Double(2 * truePositives) / Double(denominator)
    }

    /// The point at `threshold` over `images`, for one label or (nil) all labels pooled.
    public static func at(threshold: Double, in images: [EvaluatedImage], label: String? = nil) -> OperatingPoint {
        let (ranked, groundTruthCount) = pooled(images, label: label)
        var point = OperatingPoint(threshold: threshold, truePositives: 0, falsePositives: 0, groundTruthCount: groundTruthCount)
        for entry in ranked where entry.score >= threshold {
            if entry.matched[0] { point.truePositives += 1 } else { point.falsePositives += 1 }
        }
        return point
    }

    /// The threshold of best F1 over `images` (one label, or all pooled): among the distinct scores of the
    /// predictions, the one whose boxes at or above it have the highest F1; of equal F1s the highest threshold
    /// (fewer boxes for the same worth). Nil when there is no prediction.
    public static func bestF1(in images: [EvaluatedImage], label: String? = nil) -> OperatingPoint? {
        let (ranked, groundTruthCount) = pooled(images, label: label)
        var best: OperatingPoint?
        var point = OperatingPoint(threshold: 0, truePositives: 0, falsePositives: 0, groundTruthCount: groundTruthCount)
        for (position, entry) in ranked.enumerated() {
            if entry.matched[0] { point.truePositives += 1 } else { point.falsePositives += 1 }
            // A threshold takes every box of its score: only the last of equal scores is a point.
            if position + 1 < ranked.count, ranked[position + 1].score == entry.score { continue }
            point.threshold = entry.score
            if point.f1 > (best?.f1 ?? -1) { best = point }
        }
        return best
    }

    /// Every label's ranked predictions (matched at 0.5) merged by falling score, and the ground-truth count.
    private static func pooled(_ images: [EvaluatedImage], label: String?) -> ([RankedPredictions.Entry], Int) {
        let labels = label.map { [$0] } ?? AveragePrecision.allLabels(images)
        var entries: [RankedPredictions.Entry] = [], groundTruthCount = 0
        for label in labels {
            let ranked = RankedPredictions(images, label: label, thresholds: [matchingThreshold])
            entries += ranked.entries.filter { !$0.score.isNaN }
            groundTruthCount += ranked.groundTruthCount
        }
        entries.sort { $0.score > $1.score }
        return (entries, groundTruthCount)
    }
}
