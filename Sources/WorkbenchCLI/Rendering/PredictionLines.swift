import Foundation
import Workbench

/// `classify`'s output line per image: tab-separated text, or a JSON object (`--json`).
struct PredictionLines {
    /// The label given instead of an answer below the threshold.
    static let unknownLabel = "unknown"

    /// The model's labels, in its order.
    let labels: [String]
    /// `--label`: reported first, whatever the best label is; one of `labels` (the workflow checks).
    let label: String?
    /// `--top K`.
    let top: Int
    /// `--abstain`: the model's confidence threshold, below which the answer is "unknown".
    let threshold: Double?
    /// JSON Lines instead of text.
    let json: Bool

    func line(_ prediction: Prediction) -> String {
        let answered = threshold.map { prediction.isAnswered(threshold: $0) } ?? true
        return json ? JSONLines.line(jsonLine(prediction, answered: answered)) : textLine(prediction, answered: answered)
    }

    /// path, then "unknown" when abstaining, then the asked label and its confidence, then the K best.
    private func textLine(_ prediction: Prediction, answered: Bool) -> String {
        func pair(_ label: String, _ probability: Float) -> String { "\(label)\t\(String(format: "%.4f", probability))" }
        var columns = [prediction.path]
        // Below the threshold the answer is "unknown"; the ranked labels still follow, for a person to judge.
        if !answered { columns.append(Self.unknownLabel) }
        if let label { columns.append(pair(label, probability(of: label, in: prediction))) }
        // --label alone is the one asked label; --top K adds the K best after it.
        if label == nil || top > 1 {
            columns += prediction.top(top, labels: labels).map { pair($0.label, $0.probability) }
        }
        return columns.joined(separator: "\t") + "\n"
    }

    /// `{"path", "label", "confidence", ["abstained"], ["topLabel"], ["top"], "probabilities"}`.
    private func jsonLine(_ prediction: Prediction, answered: Bool) -> JSONLine {
        var line = JSONLine(
            path: prediction.path, label: prediction.label, confidence: prediction.confidence,
            probabilities: OrderedMembers(labels.indices.map { (labels[$0], prediction.probabilities[$0]) }))
        if let label {
            (line.label, line.confidence, line.topLabel) = (label, probability(of: label, in: prediction), prediction.label)
        } else {
            line.label = answered ? prediction.label : Self.unknownLabel
            if threshold != nil { (line.abstained, line.topLabel) = (!answered, prediction.label) }
        }
        if top > 1 { line.top = prediction.top(top, labels: labels).map { .init(label: $0.label, probability: $0.probability) } }
        return line
    }

    private func probability(of label: String, in prediction: Prediction) -> Float {
        prediction.probabilities[labels.firstIndex(of: label)!]
    }

    /// One image's JSON object; members in this order, absent ones left out.
    private struct JSONLine: Encodable {
        struct Ranked: Encodable {
            var label: String
            var probability: Float
        }

        var path: String
        var label: String
        var confidence: Float
        var abstained: Bool?
        var topLabel: String?
        var top: [Ranked]?
        var probabilities: OrderedMembers<Float>

        init(path: String, label: String, confidence: Float, probabilities: OrderedMembers<Float>) {
            (self.path, self.label, self.confidence, self.probabilities) = (path, label, confidence, probabilities)
        }
    }
}
