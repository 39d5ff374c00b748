/// Inference-time batch normalisation folded into the convolution before it.
///
/// `BN(conv(x)) = γ·(W·x − μ)/√(σ² + ε) + β = (γ/√(σ² + ε))·W·x + (β − μ·γ/√(σ² + ε))`, so scaling each output
/// channel's weights and replacing the (absent) bias gives one convolution with the same result and no extra
/// pass over the activations.
public enum BatchNormFolding {
    /// Folded weights and bias.
    ///
    /// `weights` has the output channel leading (`[outputChannels, ...]`, e.g. OIHW); `scale` (γ), `shift` (β),
    /// `mean` (μ) and `variance` (σ²) are `[outputChannels]`. Returns weights in the same layout and a bias
    /// `[outputChannels]`. Computed in double precision so folding adds no rounding beyond the final Float.
    public static func fold(
        weights: [Float], outputChannels: Int,
        scale: [Float], shift: [Float], mean: [Float], variance: [Float], epsilon: Float
    ) -> (weights: [Float], bias: [Float]) {
        precondition(outputChannels > 0 && weights.count % outputChannels == 0, "BatchNormFolding: weights count")
        precondition(
            [scale.count, shift.count, mean.count, variance.count].allSatisfy { $0 == outputChannels }, "BatchNormFolding: statistics count")
        let perChannel = weights.count / outputChannels
        var folded = [Float](repeating: 0, count: weights.count)
        var bias = [Float](repeating: 0, count: outputChannels)
        for channel in 0..<outputChannels {
            let factor = Double(scale[channel]) / (Double(variance[channel]) + Double(epsilon)).squareRoot()
            for index in (channel * perChannel)..<((channel + 1) * perChannel) {
                folded[index] = Float(Double(weights[index]) * factor)
            }
            bias[channel] = Float(Double(shift[channel]) - Double(mean[channel]) * factor)
        }
        return (folded, bias)
    }
}
