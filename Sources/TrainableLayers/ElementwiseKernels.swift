/// The per-channel passes of the fast layers, on raw buffers, channels innermost (the loops the compiler
/// vectorises). Optionally fused with the ReLU6 that follows a scale and bias, so the inverted-residual block
/// makes one pass over its largest tensors where the separate layers would make two.
///
/// Shapes: every tensor here is `[rows, channels]` (NHWC with the batch and pixels flattened into rows);
/// `scale`, `bias` and the per-channel sums are `[channels]`.
enum ElementwiseKernels {
    /// Rows summed in `Float` before being added to the `Double` totals: short enough to keep the float sums
    /// accurate, long enough that the double additions cost nothing.
    static let rowsPerPartialSum = 256

    /// `output = input·scale + bias`, then clamped to `[0, 6]` when `clampsToSix` (ReLU6), or plus `residual`
    /// when given (the block's skip connection).
    static func scaleBias(
        _ input: UnsafePointer<Float>, rows: Int, channels: Int, scale: UnsafePointer<Float>,
        bias: UnsafePointer<Float>, clampsToSix: Bool, residual: UnsafePointer<Float>? = nil,
        output: UnsafeMutablePointer<Float>
    ) {
        precondition(!(clampsToSix && residual != nil), "ElementwiseKernels.scaleBias: ReLU6 and a residual together")
        for row in 0..<rows {
            let source = input + row * channels, target = output + row * channels
            if clampsToSix {
                for c in 0..<channels { target[c] = Swift.min(Swift.max(source[c] * scale[c] + bias[c], 0), 6) }
            } else if let residual {
                let skip = residual + row * channels
                for c in 0..<channels { target[c] = source[c] * scale[c] + bias[c] + skip[c] }
            } else {
                for c in 0..<channels { target[c] = source[c] * scale[c] + bias[c] }
            }
        }
    }

    /// The backward pass of `scaleBias`: with `activationOutput` (the ReLU6's output) the incoming gradient is
    /// first masked to where `0 < output < 6`. Writes `inputGradient = ∂z·scale` (`∂z` without a scale; when given),
    /// `scaleGradient = Σ ∂z·input` (when both are given) and `biasGradient = Σ ∂z`, where `∂z` is the (masked)
    /// gradient; the sums go through `Double` per block of rows.
    static func scaleBiasBackward(
        outputGradient: UnsafePointer<Float>, input: UnsafePointer<Float>?, rows: Int, channels: Int,
        scale: UnsafePointer<Float>?, activationOutput: UnsafePointer<Float>?,
        inputGradient: UnsafeMutablePointer<Float>?, scaleGradient: UnsafeMutablePointer<Float>?,
        biasGradient: UnsafeMutablePointer<Float>
    ) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * channels) { scratch in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * channels) { totals in
                let scalePartial = scratch.baseAddress!, biasPartial = scalePartial + channels, masked = biasPartial + channels
                let scaleTotal = totals.baseAddress!, biasTotal = scaleTotal + channels
                scaleTotal.initialize(repeating: 0, count: 2 * channels)
                for first in stride(from: 0, to: rows, by: rowsPerPartialSum) {
                    scalePartial.initialize(repeating: 0, count: 2 * channels)
                    for row in first..<min(rows, first + rowsPerPartialSum) {
                        let offset = row * channels
                        if let activation = activationOutput {
                            for c in 0..<channels {
                                let value = activation[offset + c]
                                masked[c] = value > 0 && value < 6 ? outputGradient[offset + c] : 0
                            }
                        } else {
                            masked.update(from: outputGradient + offset, count: channels)
                        }
                        if let input, scaleGradient != nil {
                            for c in 0..<channels { scalePartial[c] += masked[c] * input[offset + c] }
                        }
                        for c in 0..<channels { biasPartial[c] += masked[c] }
                        if let target = inputGradient {
                            if let scale {
                                for c in 0..<channels { target[offset + c] = masked[c] * scale[c] }
                            } else {
                                (target + offset).update(from: masked, count: channels)
                            }
                        }
                    }
                    for c in 0..<channels {
                        scaleTotal[c] += Double(scalePartial[c])
                        biasTotal[c] += Double(biasPartial[c])
                    }
                }
                for c in 0..<channels {
                    scaleGradient?[c] = Float(scaleTotal[c])
                    biasGradient[c] = Float(biasTotal[c])
                }
            }
        }
    }
}
