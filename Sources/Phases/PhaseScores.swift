import Foundation

/// Per-sample log-probabilities of the states of a left-to-right phase chain: "before", the phases of an order,
/// "after".
///
/// For phase k, sample t scores `ln p_t(order[k])`. Labels of the model that are not in the order (`before`,
/// `after`, `idle` …) are "outside" labels: a sample outside every phase scores `ln Σ_outside p_t(l)`, the
/// log-probability that the frame shows none of the phases, whatever the outside label's name. So "before" and
/// "after" are one state as far as scores go; the chain only places them, before the first phase and after the
/// last. A model whose labels are all in the order has no outside state: the phases then cover every sample.
///
/// Probabilities are floored at `probabilityFloor` before the logarithm, so one frame the model is certain about
/// (a probability rounded to 0 in Float) costs a bounded penalty instead of vetoing every segmentation through it.
public struct PhaseScores: Sendable, Equatable {
    /// The smallest probability taken into account: ln(1e-12) ≈ −27.6, a penalty a handful of confident frames
    /// can outweigh, far below anything a calibrated model says about a frame it got right.
    public static let probabilityFloor = 1e-12

    /// Number of samples.
    public let sampleCount: Int
    /// `phase[k][t]`: the log-probability that sample t shows phase k of the order.
    public let phase: [[Double]]
    /// `outside[t]`: the log-probability that sample t shows no phase; nil when the model has no outside label.
    public let outside: [Double]?

    /// Scores from their parts (tests, and callers with their own scores). Every row has `sampleCount` values.
    public init(phase: [[Double]], outside: [Double]?) {
        self.sampleCount = phase.first?.count ?? outside?.count ?? 0
        self.phase = phase
        self.outside = outside
    }

    /// The scores of `order` from per-sample probabilities: `probabilities[t]` holds one probability per label of
    /// `labels` (the model's). Throws `.labelNotInModel` (naming `modelPath`) when a label of `order` is not one of
    /// `labels`, and `.invalidOrder` when `order` is empty or names a label twice.
    public init(probabilities: [[Float]], labels: [String], order: [String], modelPath: String) throws(PhaseError) {
        guard !order.isEmpty else { throw PhaseError(.invalidOrder, path: modelPath, reason: "the order of phases is empty") }
        if let twice = order.enumerated().first(where: { order[..<$0.offset].contains($0.element) })?.element {
            throw PhaseError(.invalidOrder, path: modelPath, reason: "the order names \(quoted(twice)) twice")
        }
        var columns: [Int] = []
        for label in order {
            guard let column = labels.firstIndex(of: label) else {
                throw PhaseError(
                    .labelNotInModel, path: modelPath,
                    reason: "the order's label \(quoted(label)) is not one of the model's labels (\(labels.map(quoted).joined(separator: ", ")))")
            }
            columns.append(column)
        }
        let outsideColumns = labels.indices.filter { !columns.contains($0) }
        let floor = Self.probabilityFloor
        phase = columns.map { column in probabilities.map { Foundation.log(max(Double($0[column]), floor)) } }
        outside =
            outsideColumns.isEmpty
            ? nil
            : probabilities.map { row in
                Foundation.log(max(outsideColumns.reduce(0.0) { $0 + Double(row[$1]) }, floor))
            }
        sampleCount = probabilities.count
    }
}
