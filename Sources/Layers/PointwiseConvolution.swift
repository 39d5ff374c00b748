import TensorCore

/// A 1×1 convolution: one matrix product over all pixels, `[pixels, inputChannels] · [inputChannels,
/// outputChannels]`, followed in the same tile by the fused epilogue `activation(x + bias) + residual`.
/// EfficientNet-Lite0's expand, project and head convolutions are all of this kind (83 % of its work).
///
/// Layout: NHWC, so the pixels of a whole batch are the rows of one matrix. Weights are `[inputChannels,
/// outputChannels]` (IO), the transpose of PyTorch's `[out, in, 1, 1]`.
public struct PointwiseConvolution: Sendable {
    /// Channels of the input tensor.
    public let inputChannels: Int
    /// Channels of the output tensor.
    public let outputChannels: Int
    /// Applied after the bias and before the residual.
    public let activation: Activation
    /// `[inputChannels, outputChannels]`.
    public let weights: [Float]
    /// `[outputChannels]`.
    public let bias: [Float]
    /// `weights` repacked once into the vector kernels' column panels (empty when they cannot run here).
    let packedWeights: [Float]

    /// A 1×1 convolution from IO weights.
    public init(weightsIO: [Float], bias: [Float], inputChannels: Int, outputChannels: Int, activation: Activation) {
        precondition(weightsIO.count == inputChannels * outputChannels, "PointwiseConvolution: weights count")
        precondition(bias.count == outputChannels, "PointwiseConvolution: bias count")
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.activation = activation
        self.weights = weightsIO
        self.bias = bias
        self.packedWeights = VectorKernels.packPointwise(weightsIO, inputs: inputChannels, outputs: outputChannels)
    }

    /// A 1×1 convolution from OIHW (`[out, in, 1, 1]`) weights, transposed once to IO.
    public init(weightsOIHW: [Float], bias: [Float], inputChannels: Int, outputChannels: Int, activation: Activation) {
        precondition(weightsOIHW.count == inputChannels * outputChannels, "PointwiseConvolution: weights count")
        var io = [Float](repeating: 0, count: weightsOIHW.count)
        for o in 0..<outputChannels {
            for i in 0..<inputChannels { io[i * outputChannels + o] = weightsOIHW[o * inputChannels + i] }
        }
        self.init(weightsIO: io, bias: bias, inputChannels: inputChannels, outputChannels: outputChannels, activation: activation)
    }

    /// input `[pixels, inputChannels]` (+ residual `[pixels, outputChannels]`) → `[pixels, outputChannels]`.
    public func forward(_ input: [Float], pixelCount: Int, residual: [Float]? = nil, kernel: KernelChoice = .automatic) -> [Float] {
        precondition(input.count == pixelCount * inputChannels, "PointwiseConvolution: input count")
        precondition(residual == nil || residual!.count == pixelCount * outputChannels, "PointwiseConvolution: residual count")
        var output = [Float](repeating: 0, count: pixelCount * outputChannels)
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                if let residual {
                    residual.withUnsafeBufferPointer { skip in
                        forward(
                            input: source.baseAddress!, pixelCount: pixelCount, output: destination.baseAddress!, residual: skip.baseAddress!,
                            kernel: kernel)
                    }
                } else {
                    forward(
                        input: source.baseAddress!, pixelCount: pixelCount, output: destination.baseAddress!, residual: nil,
                        kernel: kernel)
                }
            }
        }
        return output
    }

    /// Pixels per product tile. The tile's output (at most 384 × 1280 floats for the head, usually far less)
    /// stays in L2 between the product and the epilogue, while the tile is still tall enough for BLAS to
    /// run at speed.
    public static let tileRows = 384

    /// input `[pixels, inputChannels]` (+ residual `[pixels, outputChannels]`) → output `[pixels, outputChannels]`.
    /// `output` must overlap neither `input` nor `residual` (the product overwrites it before the residual is read).
    ///
    /// With the vector kernels (AVX2 or AVX-512) the whole layer is one call whose epilogue runs on registers;
    /// the portable path is BLAS products over row tiles, each followed by `applyEpilogue` while it is in cache.
    public func forward(
        input: UnsafePointer<Float>, pixelCount: Int, output: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?,
        kernel: KernelChoice = .automatic
    ) {
        forward(input: input, pixelCount: pixelCount, output: output, residual: residual, kernel: kernel, prefetching: nil)
    }

    /// `forward`, also pulling the start of `next`'s weights (the 1×1 layer that runs after this one) into cache
    /// while the last weight panel computes: at batch 1 the late layers' weights are usually out of cache.
    func forward(
        input: UnsafePointer<Float>, pixelCount: Int, output: UnsafeMutablePointer<Float>, residual: UnsafePointer<Float>?,
        kernel: KernelChoice, prefetching next: PointwiseConvolution?
    ) {
        if kernel.usesVectorKernels {
            let following = next?.packedWeights ?? []
            packedWeights.withUnsafeBufferPointer { packed in
                bias.withUnsafeBufferPointer { bias in
                    following.withUnsafeBufferPointer { following in
                        VectorKernels.pointwise(
                            input: input, pixels: pixelCount, inputs: inputChannels, inputStride: inputChannels,
                            packed: packed.baseAddress!, outputs: outputChannels, bias: bias.baseAddress!,
                            activation: activation, residual: residual, output: output, level: kernel.level,
                            following: following.baseAddress)
                    }
                }
            }
            return
        }
        weights.withUnsafeBufferPointer { weights in
            bias.withUnsafeBufferPointer { bias in
                var first = 0
                while first < pixelCount {
                    let rows = min(Self.tileRows, pixelCount - first)
                    let tileOutput = output + first * outputChannels
                    GEMM.multiply(
                        m: rows, n: outputChannels, k: inputChannels,
                        a: input + first * inputChannels, lda: inputChannels,
                        b: weights.baseAddress!, ldb: outputChannels,
                        c: tileOutput, ldc: outputChannels)
                    applyEpilogue(
                        tileOutput, rows: rows, columns: outputChannels, bias: bias.baseAddress!,
                        activation: activation, residual: residual.map { $0 + first * outputChannels })
                    first += rows
                }
            }
        }
    }
}
