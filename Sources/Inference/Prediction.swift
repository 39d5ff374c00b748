import FileFormats
import Foundation
import LogisticHead
import TensorCore

/// One image's classification.
public struct Prediction: Sendable, Equatable {
    public var path: String
    /// The most probable label and its probability.
    public var label: String
    public var confidence: Float
    /// Every label's probability, in the model's label order.
    public var probabilities: [Float]

    /// A prediction for the image at `path`.
    public init(path: String, label: String, confidence: Float, probabilities: [Float]) {
        (self.path, self.label, self.confidence, self.probabilities) = (path, label, confidence, probabilities)
    }

    /// Whether the prediction is sure enough to answer under `threshold` (a model's `confidenceThreshold`): its
    /// confidence is at least the threshold.
    public func isAnswered(threshold: Double) -> Bool {
        ConfidenceThresholds.isAnswered(confidence: Double(confidence), threshold: threshold)
    }

    /// The `count` most probable labels, best first (ties: model order).
    public func top(_ count: Int, labels: [String]) -> [(label: String, probability: Float)] {
        probabilities.indices.sorted { probabilities[$0] > probabilities[$1] || (probabilities[$0] == probabilities[$1] && $0 < $1) }
            .prefix(count).map { (labels[$0], probabilities[$0]) }
    }
}
