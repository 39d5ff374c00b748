import Foundation

/// CenterNet's penalty-reduced focal loss on the heat map, taken on the logits `z` (ŷ = σ(z)), with its gradient.
///
/// ```
/// L = −1/N · Σ  { (1 − ŷ)^α · log ŷ                 where y = 1   (a centre cell)
///               { (1 − y)^β · ŷ^α · log(1 − ŷ)       elsewhere
/// ```
/// α = 2, β = 4, N the number of cells with y = 1 (1 when there are none, so a picture without objects still
/// teaches the negatives). With p = σ(z), q = 1 − p = σ(−z):
///
/// ```
/// ∂L/∂z = 1/N · { α·p·q^α·log p − q^(α+1)                  where y = 1
///               { (1 − y)^β · (p^(α+1) − α·p^α·q·log q)    elsewhere
/// ```
/// Everything is computed in double precision from the logits: `log p = −softplus(−z)` and `log q = −softplus(z)`
/// stay finite for any finite logit, so no clamping of ŷ (the reference code's `[1e-4, 1 − 1e-4]`) is needed and the
/// gradient is the derivative of the loss everywhere.
public enum FocalLoss {
    /// The focusing exponent on the predicted probability.
    public static let alpha = 2.0
    /// The exponent that reduces the penalty near a centre: `(1 − y)^β`.
    public static let beta = 4.0

    /// The loss over `logits` against `targets` (same layout and count, targets in [0, 1]), and its gradient
    /// with respect to the logits.
    public static func lossAndGradient<Scalar: BinaryFloatingPoint>(logits: [Scalar], targets: [Scalar]) -> (loss: Double, gradient: [Scalar]) {
        precondition(logits.count == targets.count, "FocalLoss: \(logits.count) logits for \(targets.count) targets")
        let positives = targets.reduce(0) { $0 + ($1 == 1 ? 1 : 0) }
        let scale = 1 / Double(max(positives, 1))
        var loss = 0.0
        var gradient = [Scalar](repeating: 0, count: logits.count)
        for index in logits.indices {
            let logit = Double(logits[index]), target = Double(targets[index])
            let p = sigmoid(logit), q = sigmoid(-logit)
            if target == 1 {
                let logP = -softplus(-logit)
                let weight = pow(q, alpha)
                loss -= weight * logP
                gradient[index] = Scalar(scale * (alpha * p * weight * logP - weight * q))
            } else {
                let logQ = -softplus(logit)
                let reduction = pow(1 - target, beta)
                let weight = pow(p, alpha)
                loss -= reduction * weight * logQ
                gradient[index] = Scalar(scale * reduction * (weight * p - alpha * weight * q * logQ))
            }
        }
        return (loss * scale, gradient)
    }

    /// `1 / (1 + e^−x)`, without overflow for large |x|.
    static func sigmoid(_ x: Double) -> Double {
        x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x))
    }

    /// `log(1 + e^x)`, without overflow: `max(x, 0) + log1p(e^−|x|)`.
    static func softplus(_ x: Double) -> Double {
        max(x, 0) + log1p(exp(-abs(x)))
    }
}
