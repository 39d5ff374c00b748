import TrainableLayers

/// Nearest-neighbour upsampling of a stride-32 map onto the stride-16 grid: fine cell `(y, x)` takes coarse cell
/// `(min(⌊y/2⌋, coarseHeight − 1), min(⌊x/2⌋, coarseWidth − 1))`, so a fine grid of odd side (an input side that
/// is an odd multiple of 16) repeats the last coarse row and column once more.
///
/// Shapes: input `[batch, coarseHeight, coarseWidth, channels]` → output `[batch, fineHeight, fineWidth, channels]`.
/// Backward: each coarse cell's gradient is the sum of the gradients of the fine cells that copied it. Plain loops
/// over values only (no arithmetic but the sums), so there is no separate fast path.
public struct NearestUpsampling: Sendable, Equatable {
    /// Rows of the output.
    public let fineHeight: Int
    /// Columns of the output.
    public let fineWidth: Int

    /// An upsampling to a `fineHeight × fineWidth` grid.
    public init(fineHeight: Int, fineWidth: Int) {
        self.fineHeight = fineHeight
        self.fineWidth = fineWidth
    }

    private func source(_ fine: Int, coarse: Int) -> Int { min(fine / 2, coarse - 1) }

    /// The coarse map copied onto the fine grid.
    public func forward<Scalar>(_ input: Tensor<Scalar>) -> Tensor<Scalar> {
        let (batch, coarseHeight, coarseWidth, channels) = input.nhwc
        precondition(
            2 * coarseHeight >= fineHeight && 2 * coarseWidth >= fineWidth && coarseHeight > 0 && coarseWidth > 0,
            "NearestUpsampling: \(input.shape) does not cover \(fineHeight)×\(fineWidth)")
        return Tensor(shape: [batch, fineHeight, fineWidth, channels]) { output in
            input.withUnsafeBufferPointer { input in
                for item in 0..<batch {
                    for y in 0..<fineHeight {
                        let coarseRow = source(y, coarse: coarseHeight)
                        for x in 0..<fineWidth {
                            let from = ((item * coarseHeight + coarseRow) * coarseWidth + source(x, coarse: coarseWidth)) * channels
                            let to = ((item * fineHeight + y) * fineWidth + x) * channels
                            for channel in 0..<channels { output[to + channel] = input[from + channel] }
                        }
                    }
                }
            }
        }
    }

    /// The gradient on the coarse map (`coarseShape`) from the output's gradient.
    public func backward<Scalar>(_ outputGradient: Tensor<Scalar>, coarseShape: [Int]) -> Tensor<Scalar> {
        let (batch, coarseHeight, coarseWidth, channels) = (coarseShape[0], coarseShape[1], coarseShape[2], coarseShape[3])
        precondition(outputGradient.shape == [batch, fineHeight, fineWidth, channels], "NearestUpsampling: gradient shape")
        var gradient = Tensor<Scalar>(shape: coarseShape)
        gradient.withUnsafeMutableBufferPointer { gradient in
            outputGradient.withUnsafeBufferPointer { outputGradient in
                for item in 0..<batch {
                    for y in 0..<fineHeight {
                        let coarseRow = source(y, coarse: coarseHeight)
                        for x in 0..<fineWidth {
                            let to = ((item * coarseHeight + coarseRow) * coarseWidth + source(x, coarse: coarseWidth)) * channels
                            let from = ((item * fineHeight + y) * fineWidth + x) * channels
                            for channel in 0..<channels { gradient[to + channel] += outputGradient[from + channel] }
                        }
                    }
                }
            }
        }
        return gradient
    }
}
