/// The per-channel passes of the fast layers, on raw buffers, channels innermost (the loops the compiler
/// vectorises). Optionally fused with the ReLU6 that follows a scale and bias, so the inverted-residual block
/// makes one pass over its largest tensors where the separate layers would make two.
enum ElementwiseKernels {
    /// Rows summed in `Float` before being added to the `Double` totals: short enough to keep the float sums
    /// accurate, long enough that the double additions cost nothing.
    static let rowsPerPartialSum = 256

    /// `output[r, c] = input[r, c]·scale[c] + bias[c]` over rows of `channels` values, then clamped to `[0, 6]`
    /// when `clampsToSix` (ReLU6), or plus `residual[r, c]` when given (the block's skip connection).
    static func scaleBias(_ input: [Float], scale: [Float], bias: [Float], channels: Int, clampsToSix: Bool,
                          residual: [Float]? = nil, output: UnsafeMutablePointer<Float>) {
        precondition(!(clampsToSix && residual != nil), "ElementwiseKernels.scaleBias: ReLU6 and a residual together")
        let rows = input.count / channels
        input.withUnsafeBufferPointer { input in
            scale.withUnsafeBufferPointer { scale in
                bias.withUnsafeBufferPointer { bias in
                    (residual ?? []).withUnsafeBufferPointer { skip in
                        let scale = scale.baseAddress!, bias = bias.baseAddress!
                        for row in 0..<rows {
                            let source = input.baseAddress! + row * channels, target = output + row * channels
                            if clampsToSix {
                                for c in 0..<channels { target[c] = Swift.min(Swift.max(source[c] * scale[c] + bias[c], 0), 6) }
                            } else if residual != nil {
                                let skip = skip.baseAddress! + row * channels
                                for c in 0..<channels { target[c] = source[c] * scale[c] + bias[c] + skip[c] }
                            } else {
                                for c in 0..<channels { target[c] = source[c] * scale[c] + bias[c] }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The backward pass of `scaleBias`: with `activationOutput` (the ReLU6's output) the incoming gradient is
    /// first masked to where `0 < output < 6`. Returns `∂input = ∂z·scale` (when asked), `∂scale = Σ ∂z·input` and
    /// `∂bias = Σ ∂z`, where `∂z` is the (masked) gradient; the sums go through `Double` per block of rows.
    static func scaleBiasBackward(outputGradient: [Float], input: [Float], scale: [Float], channels: Int,
                                  activationOutput: [Float]?, computesInputGradient: Bool)
        -> (input: [Float]?, scale: [Float], bias: [Float]) {
        let rows = input.count / channels
        var inputGradient = [Float](repeating: 0, count: computesInputGradient ? input.count : 0)
        var scaleTotals = [Double](repeating: 0, count: channels), biasTotals = scaleTotals
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * channels) { scratch in
            let scalePartial = scratch.baseAddress!, biasPartial = scalePartial + channels, masked = biasPartial + channels
            outputGradient.withUnsafeBufferPointer { gradient in
                input.withUnsafeBufferPointer { input in
                    scale.withUnsafeBufferPointer { scale in
                        (activationOutput ?? []).withUnsafeBufferPointer { activation in
                            inputGradient.withUnsafeMutableBufferPointer { inputGradient in
                                let gradient = gradient.baseAddress!, input = input.baseAddress!, scale = scale.baseAddress!
                                // An empty array's base address may be non-nil: the flags decide, not the pointers.
                                let activation = activationOutput == nil ? nil : activation.baseAddress
                                let target = computesInputGradient ? inputGradient.baseAddress : nil
                                for first in stride(from: 0, to: rows, by: rowsPerPartialSum) {
                                    scalePartial.update(repeating: 0, count: 2 * channels)
                                    for row in first..<min(rows, first + rowsPerPartialSum) {
                                        let offset = row * channels
                                        if let activation {
                                            for c in 0..<channels {
                                                let value = activation[offset + c]
                                                masked[c] = value > 0 && value < 6 ? gradient[offset + c] : 0
                                            }
                                        } else {
                                            masked.update(from: gradient + offset, count: channels)
                                        }
                                        for c in 0..<channels {
                                            scalePartial[c] += masked[c] * input[offset + c]
                                            biasPartial[c] += masked[c]
                                        }
                                        if let target {
                                            for c in 0..<channels { target[offset + c] = masked[c] * scale[c] }
                                        }
                                    }
                                    for c in 0..<channels {
                                        scaleTotals[c] += Double(scalePartial[c])
                                        biasTotals[c] += Double(biasPartial[c])
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return (computesInputGradient ? inputGradient : nil, scaleTotals.map { Float($0) }, biasTotals.map { Float($0) })
    }
}
