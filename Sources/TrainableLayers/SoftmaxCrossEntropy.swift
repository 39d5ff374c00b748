import Foundation

/// The classifier's loss: softmax cross-entropy against label-smoothed targets, averaged over the batch.
///
/// Shapes: logits `[batch, classes]`, one label in `0..<classes` per row. With smoothing `ε` the target of a row
/// labelled `y` is `q = (1 − ε)·onehot(y) + ε/classes` (PyTorch's `label_smoothing`), and
/// `loss = −(1/normalizer)·Σ_rows Σ_k q_k·log softmax(logits)_k`. Backward: `∂logits = (softmax − q) / normalizer`.
/// `normalizer` is the whole batch's size, so threads that each take a part of the batch produce parts that
/// simply add up. Computed in double precision (its cost is `batch × classes`), so one implementation serves
/// as both the fast path and the reference.
public enum SoftmaxCrossEntropy {
    /// The loss and its gradient with respect to the logits.
    public static func lossAndGradient<Scalar: BinaryFloatingPoint & Sendable>(
        logits: Tensor<Scalar>, labels: [Int], labelSmoothing: Double, normalizer: Int
    ) -> (loss: Double, logitGradient: Tensor<Scalar>) {
        precondition(logits.rank == 2 && logits.shape[0] == labels.count, "SoftmaxCrossEntropy: \(labels.count) labels for \(logits.shape)")
        precondition(labelSmoothing >= 0 && labelSmoothing < 1 && normalizer > 0, "SoftmaxCrossEntropy: smoothing or normalizer")
        let classes = logits.shape[1]
        precondition(labels.allSatisfy { $0 >= 0 && $0 < classes }, "SoftmaxCrossEntropy: label outside 0..<\(classes)")
        var gradient = Tensor<Scalar>(shape: logits.shape)
        var loss = 0.0
        let uniform = labelSmoothing / Double(classes)
        for row in 0..<labels.count {
            let values = (0..<classes).map { Double(logits.storage[row * classes + $0]) }
            let largest = values.max() ?? 0
            let logSum = log(values.reduce(0) { $0 + exp($1 - largest) }) + largest
            for k in 0..<classes {
                let target = uniform + (k == labels[row] ? 1 - labelSmoothing : 0)
                let logProbability = values[k] - logSum
                loss -= target * logProbability
                gradient.storage[row * classes + k] = Scalar((exp(logProbability) - target) / Double(normalizer))
            }
        }
        return (loss / Double(normalizer), gradient)
    }
}
