import LogisticHead
import Pages

extension ModelReportPage.Thresholds {
    /// Curves from the held-out thresholds the head measured (`ConfidenceThresholds.table`), each as the page's
    /// `ThresholdPoint`.
    public init(split: String, points: [ThresholdOutcome], chosen: (threshold: Double, caption: String)? = nil) {
        let pagePoints = points.map { ModelReportPage.ThresholdPoint(threshold: $0.threshold, answered: $0.answered, accuracy: $0.accuracy) }
        self.init(split: split, points: pagePoints, chosen: chosen)
    }
}
