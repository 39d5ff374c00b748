/// The L1 loss of the size and offset maps at the masked (centre) cells, with its gradient:
///
/// ```
/// L = 1/(C·N) · Σ_cells mask · Σ_channels |predicted − target|     N = Σ mask, C = channels (C·N taken as 1 when 0)
/// ∂L/∂predicted = mask · sign(predicted − target) / (C·N)         (0 where they are equal)
/// ```
/// The mean over the masked values, as CenterNet's code computes it (`RegL1Loss`: the mask expanded to both
/// channels, the summed L1 divided by `mask.sum()`, which is then C·N). "Objects as Points" writes the sum over the
/// 2-vector divided by N, twice this; the code's division is kept because the published weights λ_size = 0.1 and
/// λ_offset = 1 were tuned with it. The code's `+ 1e-4` in the divisor is left out (a relative 5·10⁻⁵ at one
/// object; it only guards the empty mask, which has no loss to divide). Cells outside the mask get no gradient.
public enum RegressionL1Loss {
    /// The loss over `predicted` against `targets` (`[cells, channels]` each) at the cells `mask` marks
    /// (`[cells]`, 0 or 1), and its gradient with respect to `predicted`.
    public static func lossAndGradient<Scalar: BinaryFloatingPoint>(
        predicted: [Scalar], targets: [Scalar], mask: [Scalar],
        channels: Int = 2
    ) -> (loss: Double, gradient: [Scalar]) {
        precondition(
            predicted.count == targets.count && predicted.count == mask.count * channels,
            "RegressionL1Loss: \(predicted.count) predictions, \(targets.count) targets, \(mask.count) mask cells × \(channels)")
        let count = mask.reduce(0.0) { $0 + Double($1) } * Double(channels)
        let scale = 1 / max(count, 1)
        var loss = 0.0
        var gradient = [Scalar](repeating: 0, count: predicted.count)
        for cell in mask.indices where mask[cell] != 0 {
            let weight = Double(mask[cell])
            for channel in 0..<channels {
                let index = cell * channels + channel
                let difference = Double(predicted[index]) - Double(targets[index])
                loss += weight * abs(difference)
                gradient[index] = Scalar(difference > 0 ? weight * scale : difference < 0 ? -weight * scale : 0)
            }
        }
        return (loss * scale, gradient)
    }
}
