import DetectionMetrics

/// One label's figures in a detector's scores.
public struct DetectorLabelScore: Sendable, Equatable, Codable {
    /// The label.
    public var label: String
    /// Its boxes in the ground truth.
    public var groundTruthCount: Int
    /// AP at IoU 0.5 (nil without ground truth: pycocotools' −1, left out of the means).
    public var averagePrecision50: Double?
    /// AP averaged over IoU 0.5 … 0.95.
    public var averagePrecision: Double?
    /// Precision of the boxes scoring at least the threshold (IoU 0.5); nil when none does (undefined, as
    /// pycocotools' −1: not 1, and left out of any mean).
    public var precision: Double?
    /// Recall at the threshold.
    public var recall: Double
    /// Boxes of the label scoring at least the threshold: what `detect` reports (nil in reports written before
    /// it was counted).
    public var reportedBoxes: Int?
    /// Candidate boxes of the label at any score (at most 100 a picture), which the APs rank: a detail, not what
    /// a user sees (nil in reports written before it was counted).
    public var candidateBoxes: Int?
}

/// The numbers people compare for a detector on a set of pictures: mAP@0.5 and mAP@0.5:0.95 (pycocotools'
/// definitions, `DetectionMetrics.AveragePrecision`) overall and per label, and precision and recall at the score
/// threshold (`OperatingPoint`, pooled over labels).
public struct DetectorScores: Sendable, Equatable, Codable {
    /// Pictures scored.
    public var imageCount: Int
    /// Ground-truth boxes in them.
    public var objectCount: Int
    /// Mean over labels with ground truth of AP@0.5.
    public var meanAveragePrecision50: Double?
    /// Mean over labels with ground truth of AP@0.5:0.95.
    public var meanAveragePrecision: Double?
    /// The score threshold the precision and recall are at.
    public var threshold: Double
    /// Precision at the threshold, all labels pooled; nil when no box scores that much (undefined).
    public var precision: Double?
    /// Recall at the threshold, all labels pooled.
    public var recall: Double
    /// Boxes scoring at least the threshold, all labels (nil in reports written before it was counted).
    public var reportedBoxes: Int?
    /// Candidate boxes at any score, all labels (nil in reports written before it was counted).
    public var candidateBoxes: Int?
    /// Per label, in the model's label order.
    public var labels: [DetectorLabelScore]

    /// Scores `images` (ground truth and predictions) over `labels` at `threshold`.
    public init(_ images: [EvaluatedImage], labels: [String], threshold: Double) {
        let report = AveragePrecision.evaluate(images, labels: labels)
        let pooled = OperatingPoint.at(threshold: threshold, in: images)
        imageCount = images.count
        objectCount = images.reduce(0) { $0 + $1.groundTruth.count }
        meanAveragePrecision50 = report.meanAveragePrecision50
        meanAveragePrecision = report.meanAveragePrecision
        self.threshold = threshold
        precision = pooled.precision
        recall = pooled.recall
        reportedBoxes = pooled.reportedCount
        candidateBoxes = report.labels.reduce(0) { $0 + $1.predictionCount }
        self.labels = report.labels.map { label in
            let point = OperatingPoint.at(threshold: threshold, in: images, label: label.label)
            return DetectorLabelScore(
                label: label.label, groundTruthCount: label.groundTruthCount,
                averagePrecision50: label.averagePrecision50, averagePrecision: label.averagePrecision,
                precision: point.precision, recall: point.recall, reportedBoxes: point.reportedCount,
                candidateBoxes: label.predictionCount)
        }
    }
}
