/// The L1 loss of the size and offset maps at the masked (centre) cells, with its gradient:
///
/// ```
/// L = 1/N · Σ_cells mask · Σ_channels |predicted − target|        N = Σ mask (1 when 0)
/// ∂L/∂predicted = mask · sign(predicted − target) / N            (0 where they are equal)
/// ```
/// "Objects as Points" writes both losses as a mean over objects of the L1 distance of the 2-vectors, which this
/// is; cells outside the mask get no gradient.
public enum RegressionL1Loss {
    /// The loss over `predicted` against `targets` (`[cells, channels]` each) at the cells `mask` marks
    /// (`[cells]`, 0 or 1), and its gradient with respect to `predicted`.
    public static func lossAndGradient<Scalar: BinaryFloatingPoint>(predicted: [Scalar], targets: [Scalar], mask: [Scalar],
                                                                    channels: Int = 2) -> (loss: Double, gradient: [Scalar]) {
        precondition(predicted.count == targets.count && predicted.count == mask.count * channels,
                     "RegressionL1Loss: \(predicted.count) predictions, \(targets.count) targets, \(mask.count) mask cells × \(channels)")
        let count = mask.reduce(0.0) { $0 + Double($1) }
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
