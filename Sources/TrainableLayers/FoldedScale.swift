import Layers

/// How the fast block and network passes run a convolution and the scale-bias after it as one convolution.
///
/// Forward: `conv(X, W)·s + b = conv(X, W·s) + b`, with `s` multiplied into each output channel's weights (a pass
/// over the weights, not the activations), so the inference kernels run it with their fused bias, ReLU6 and
/// residual epilogue and the convolution's own output is never stored.
///
/// Backward, with `∂z` the gradient before the activation and `G = ∂loss/∂(W·s)` the folded weights' gradient
/// (the convolution's usual weight gradient, taken with `∂z`):
/// `∂W = G·s`, `∂s[o] = Σ W[…, o]·G[…, o]` (over everything but the output channel), `∂b = Σ ∂z`, and the input
/// gradient is the convolution's with the folded weights. Neither `∂W` nor `∂s` needs the convolution's output,
/// which the layer-by-layer composition keeps for `∂s = Σ ∂z·conv(X, W)`; the block's reference check
/// compares the two.
enum FoldedScale {
    /// `weights[…, o]·scale[o]`, for weights whose last dimension is the output channel (IO, HWC, HWIO).
    static func fold(_ weights: Tensor<Float>, _ scale: Tensor<Float>) -> [Float] {
        let channels = scale.count
        precondition(weights.shape.last == channels, "FoldedScale: weights \(weights.shape) for \(channels) channels")
        return [Float](unsafeUninitializedCapacity: weights.count) { folded, initialized in
            weights.withUnsafeBufferPointer { weights in
                scale.withUnsafeBufferPointer { scale in
                    for row in 0..<(weights.count / channels) {
                        for channel in 0..<channels { folded[row * channels + channel] = weights[row * channels + channel] * scale[channel] }
                    }
                }
            }
            initialized = weights.count
        }
    }

    /// `fold` transposed to `[outputChannels, inputChannels]` in the same pass, for a 1×1 convolution's IO weights
    /// `[inputChannels, outputChannels]` (its input gradient multiplies by the transpose), in 32 × 32 tiles.
    static func foldedTransposed(_ weights: Tensor<Float>, _ scale: Tensor<Float>) -> [Float] {
        precondition(weights.rank == 2 && weights.shape[1] == scale.count, "FoldedScale: weights \(weights.shape)")
        let rows = weights.shape[0], columns = weights.shape[1], tile = 32
        return [Float](unsafeUninitializedCapacity: weights.count) { output, initialized in
            weights.withUnsafeBufferPointer { weights in
                scale.withUnsafeBufferPointer { scale in
                    for rowStart in stride(from: 0, to: rows, by: tile) {
                        for columnStart in stride(from: 0, to: columns, by: tile) {
                            for row in rowStart..<min(rows, rowStart + tile) {
                                for column in columnStart..<min(columns, columnStart + tile) {
                                    output[column * rows + row] = weights[row * columns + column] * scale[column]
                                }
                            }
                        }
                    }
                }
            }
            initialized = weights.count
        }
    }

    /// Rows summed in `Float` before the `Double` totals of `unfold` (vectorised float sums, accurate totals).
    static let rowsPerPartialSum = 64

    /// `∂weights = G·scale` and `∂scale[o] = Σ weights[…, o]·G[…, o]` (float over 64 rows, then double) from the
    /// folded weights' gradient `G` (same shape as `weights`).
    static func unfold(
        _ foldedGradient: Tensor<Float>, weights: Tensor<Float>,
        scale: Tensor<Float>
    ) -> (weights: Tensor<Float>, scale: Tensor<Float>) {
        let channels = scale.count, rows = weights.count / channels
        precondition(foldedGradient.shape == weights.shape, "FoldedScale: gradient \(foldedGradient.shape) for \(weights.shape)")
        var sums = [Double](repeating: 0, count: channels)
        let weightGradient = Tensor<Float>(shape: weights.shape) { target in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: channels) { partial in
                foldedGradient.withUnsafeBufferPointer { gradient in
                    weights.withUnsafeBufferPointer { weights in
                        scale.withUnsafeBufferPointer { scale in
                            let partial = partial.baseAddress!, target = target.baseAddress!
                            let gradient = gradient.baseAddress!, weights = weights.baseAddress!, scale = scale.baseAddress!
                            for first in stride(from: 0, to: rows, by: rowsPerPartialSum) {
                                partial.initialize(repeating: 0, count: channels)
                                for row in first..<min(rows, first + rowsPerPartialSum) {
                                    let offset = row * channels
                                    for channel in 0..<channels {
                                        target[offset + channel] = gradient[offset + channel] * scale[channel]
                                        partial[channel] += weights[offset + channel] * gradient[offset + channel]
                                    }
                                }
                                for channel in 0..<channels { sums[channel] += Double(partial[channel]) }
                            }
                        }
                    }
                }
            }
        }
        return (weightGradient, Tensor(shape: [channels], storage: sums.map { Float($0) }))
    }

    /// The gradient before an activation and its per-channel sum (the bias gradient). `activated` is the ReLU6's
    /// output (the gradient is zeroed where it is not strictly inside (0, 6)); nil for no activation, when the
    /// gradient is returned as it is and only summed.
    static func preActivationGradient(
        _ gradient: Tensor<Float>, activated: Tensor<Float>?,
        kernel: KernelChoice
    ) -> (gradient: Tensor<Float>, biasGradient: Tensor<Float>) {
        let channels = gradient.shape.last!
        precondition(activated == nil || activated!.shape == gradient.shape, "FoldedScale: activation shape")
        var biasGradient = Tensor<Float>(shape: [channels]) { _ in }
        var masked = activated == nil ? gradient : Tensor<Float>(shape: gradient.shape) { _ in }
        // Every tensor read here is a parameter of this call, alive until it returns.
        biasGradient.withUnsafeMutableBufferPointer { biasGradient in
            func run(_ target: UnsafeMutablePointer<Float>?) {
                TrainingKernels.scaleBiasBackward(
                    outputGradient: gradient.storage.baseAddress, input: nil, rows: gradient.count / channels,
                    channels: channels, scale: nil, activationOutput: activated?.storage.baseAddress,
                    inputGradient: target, scaleGradient: nil, biasGradient: biasGradient.baseAddress!,
                    kernel: kernel)
            }
            if activated == nil {
                run(nil)
            } else {
                masked.withUnsafeMutableBufferPointer { run($0.baseAddress!) }
            }
        }
        return (masked, biasGradient)
    }
}
