import TensorCore

/// A fully connected layer, `output = input · weightsᵀ + bias`.
///
/// Shapes: input `[batch, inputCount]`, weights `[outputCount, inputCount]` (PyTorch's `nn.Linear` layout, used
/// as is through a transposed product), bias `[outputCount]`, output `[batch, outputCount]`.
public struct Dense: Sendable {
    /// Features per input row.
    public let inputCount: Int
    /// Values per output row.
    public let outputCount: Int
    /// `[outputCount, inputCount]`.
    public let weights: [Float]
    /// `[outputCount]`.
    public let bias: [Float]

    /// A dense layer from `[outputCount, inputCount]` weights.
    public init(weights: [Float], bias: [Float], inputCount: Int, outputCount: Int) {
        precondition(weights.count == inputCount * outputCount, "Dense: weights count")
        precondition(bias.count == outputCount, "Dense: bias count")
        self.inputCount = inputCount
        self.outputCount = outputCount
        self.weights = weights
        self.bias = bias
    }

    /// input `[batch, inputCount]` → `[batch, outputCount]`.
    public func forward(_ input: [Float], batch: Int) -> [Float] {
        precondition(input.count == batch * inputCount, "Dense: input count")
        var output = [Float](repeating: 0, count: batch * outputCount)
        GEMM.multiplyByTranspose(input, weights, rows: batch, columns: outputCount, depth: inputCount, into: &output)
        bias.withUnsafeBufferPointer { bias in
            output.withUnsafeMutableBufferPointer { destination in
                applyEpilogue(
                    destination.baseAddress!, rows: batch, columns: outputCount, bias: bias.baseAddress!,
                    activation: .none, residual: nil)
            }
        }
        return output
    }
}
