import TensorCore

/// A dense (ungrouped) 2-D convolution with a square kernel, computed as im2col + one matrix product per tile
/// of output pixels. EfficientNet-Lite0 uses it for the stem (3×3, stride 2, 3 → 32 channels).
///
/// Every activation tensor in Workbench is NHWC float32: `[batch, height, width, channels]`, row-major, channels
/// innermost. Weights are HWIO, `[kernelSize, kernelSize, inputChannels, outputChannels]`, which read as a
/// matrix is `[kernelSize·kernelSize·inputChannels, outputChannels]`, the right-hand side of the product.
public struct Convolution2D: WindowConvolution {
    /// Channels of the input tensor.
    public let inputChannels: Int
    /// Channels of the output tensor (filters).
    public let outputChannels: Int
    /// Side of the square kernel.
    public let kernelSize: Int
    /// Step between windows, the same on both axes.
    public let stride: Int
    /// How the input is padded.
    public let padding: PaddingRule
    /// Applied after the bias.
    public let activation: Activation
    /// `[kernelSize, kernelSize, inputChannels, outputChannels]` (HWIO).
    public let weights: [Float]
    /// `[outputChannels]`.
    public let bias: [Float]
    /// `weights` as a `[k·k·inputChannels, outputChannels]` matrix packed for the vector kernels (empty without them).
    let packedWeights: [Float]

    /// A convolution from HWIO weights.
    public init(
        weightsHWIO: [Float], bias: [Float], inputChannels: Int, outputChannels: Int, kernelSize: Int,
        stride: Int, padding: PaddingRule, activation: Activation
    ) {
        precondition(weightsHWIO.count == kernelSize * kernelSize * inputChannels * outputChannels, "Convolution2D: weights count")
        precondition(bias.count == outputChannels, "Convolution2D: bias count")
        precondition(stride > 0 && kernelSize > 0, "Convolution2D: stride and kernel must be positive")
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.kernelSize = kernelSize
        self.stride = stride
        self.padding = padding
        self.activation = activation
        self.weights = weightsHWIO
        self.bias = bias
        self.packedWeights = VectorKernels.packPointwise(
            weightsHWIO, inputs: kernelSize * kernelSize * inputChannels,
            outputs: outputChannels)
    }

    /// A convolution from OIHW weights (PyTorch's layout), repacked once to HWIO.
    public init(
        weightsOIHW: [Float], bias: [Float], inputChannels: Int, outputChannels: Int, kernelSize: Int,
        stride: Int, padding: PaddingRule, activation: Activation
    ) {
        precondition(weightsOIHW.count == kernelSize * kernelSize * inputChannels * outputChannels, "Convolution2D: weights count")
        var hwio = [Float](repeating: 0, count: weightsOIHW.count)
        for o in 0..<outputChannels {
            for i in 0..<inputChannels {
                for y in 0..<kernelSize {
                    for x in 0..<kernelSize {
                        hwio[((y * kernelSize + x) * inputChannels + i) * outputChannels + o] =
                            weightsOIHW[((o * inputChannels + i) * kernelSize + y) * kernelSize + x]
                    }
                }
            }
        }
        self.init(
            weightsHWIO: hwio, bias: bias, inputChannels: inputChannels, outputChannels: outputChannels,
            kernelSize: kernelSize, stride: stride, padding: padding, activation: activation)
    }

    /// Output pixels per im2col tile: 256 rows of a 3×3×3 patch matrix are 27 KB, comfortably in L1/L2 with
    /// the tile's output, so the epilogue runs on data the product just wrote.
    static let tileRows = 256

    /// input `[batch, height, width, inputChannels]` → output `[batch, outHeight, outWidth, outputChannels]`.
    ///
    /// For each tile of output pixels: gather the patches into `[rows, k·k·inputChannels]` (zeros where the
    /// window hangs over the padding), multiply by the HWIO weights, then add bias and activate in place.
    /// With AVX2 or AVX-512 the product and epilogue are one `CKernels` call per tile; the gather is portable C.
    public func forward(
        input: UnsafePointer<Float>, batch: Int, height: Int, width: Int, output: UnsafeMutablePointer<Float>,
        kernel: KernelChoice = .automatic
    ) {
        let vector = kernel.usesVectorKernels
        let pad = padding.resolve(inputHeight: height, inputWidth: width, kernelSize: kernelSize, stride: stride)
        let size = outputSize(inputHeight: height, inputWidth: width)
        let (outputHeight, outputWidth) = size
        let patchLength = kernelSize * kernelSize * inputChannels
        let pixelCount = batch * outputHeight * outputWidth
        let tileRows = Self.tileRows
        withUnsafeTemporaryAllocation(of: Float.self, capacity: tileRows * patchLength) { patches in
            let patches = patches.baseAddress!
            weights.withUnsafeBufferPointer { weights in
                bias.withUnsafeBufferPointer { bias in
                    var first = 0
                    while first < pixelCount {
                        // Tiles never straddle two images, so each is one gather from one image.
                        let imagePixels = outputHeight * outputWidth
                        let n = first / imagePixels, firstInImage = first % imagePixels
                        let rows = min(tileRows, imagePixels - firstInImage)
                        gatherPatches(
                            image: input + n * height * width * inputChannels, height: height, width: width,
                            channels: inputChannels, kernelSize: kernelSize, stride: stride, padding: pad,
                            outputWidth: outputWidth, firstPixel: firstInImage, count: rows, patches: patches)
                        let tileOutput = output + first * outputChannels
                        if vector {
                            packedWeights.withUnsafeBufferPointer { packed in
                                VectorKernels.pointwise(
                                    input: patches, pixels: rows, inputs: patchLength, inputStride: patchLength,
                                    packed: packed.baseAddress!, outputs: outputChannels, bias: bias.baseAddress!,
                                    activation: activation, residual: nil, output: tileOutput, level: kernel.level)
                            }
                            first += rows
                            continue
                        }
                        GEMM.multiply(
                            m: rows, n: outputChannels, k: patchLength,
                            a: patches, lda: patchLength,
                            b: weights.baseAddress!, ldb: outputChannels,
                            c: tileOutput, ldc: outputChannels)
                        applyEpilogue(
                            tileOutput, rows: rows, columns: outputChannels, bias: bias.baseAddress!,
                            activation: activation, residual: nil)
                        first += rows
                    }
                }
            }
        }
    }

    /// Output rows `outputRows` of one image with the vector kernels (the stem's part of the fused first block).
    /// input `[height, width, inputChannels]` → output `[outputRows.count, outWidth, outputChannels]`.
    func forwardRows(
        input: UnsafePointer<Float>, height: Int, width: Int, outputRows: Range<Int>,
        output: UnsafeMutablePointer<Float>, level: VectorKernels.Level
    ) {
        let pad = padding.resolve(inputHeight: height, inputWidth: width, kernelSize: kernelSize, stride: stride)
        let outputWidth = outputSize(inputHeight: height, inputWidth: width).width
        let patchLength = kernelSize * kernelSize * inputChannels
        let firstPixel = outputRows.lowerBound * outputWidth, endPixel = outputRows.upperBound * outputWidth
        withUnsafeTemporaryAllocation(of: Float.self, capacity: Self.tileRows * patchLength) { patches in
            packedWeights.withUnsafeBufferPointer { packed in
                bias.withUnsafeBufferPointer { bias in
                    for first in Swift.stride(from: firstPixel, to: endPixel, by: Self.tileRows) {
                        let rows = min(Self.tileRows, endPixel - first)
                        gatherPatches(
                            image: input, height: height, width: width, channels: inputChannels, kernelSize: kernelSize,
                            stride: stride, padding: pad, outputWidth: outputWidth, firstPixel: first, count: rows,
                            patches: patches.baseAddress!)
                        VectorKernels.pointwise(
                            input: patches.baseAddress!, pixels: rows, inputs: patchLength, inputStride: patchLength,
                            packed: packed.baseAddress!, outputs: outputChannels, bias: bias.baseAddress!,
                            activation: activation, residual: nil,
                            output: output + (first - firstPixel) * outputChannels, level: level)
                    }
                }
            }
        }
    }
}
