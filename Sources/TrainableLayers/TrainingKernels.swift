import CTrainingKernels
import Layers
import TensorCore

/// The fast layers' heavy loops, and the only Swift file that calls `CTrainingKernels`: each call runs the
/// AVX-512 or AVX2 kernel the `KernelChoice` allows on this machine, or the portable Swift/BLAS path. Forward
/// products go through `Layers`' vector kernels. Tests run every level against the references.
enum TrainingKernels {
    /// The instruction sets, as `KernelChoice.instructionSetLevel` numbers them.
    static let avx2 = 1, avx512 = 2

    /// `output = clamp(input·scale + bias) + residual` over `[rows, channels]` (see `ElementwiseKernels.scaleBias`).
    static func scaleBias(
        _ input: UnsafePointer<Float>, rows: Int, channels: Int, scale: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        clampsToSix: Bool, residual: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>, kernel: KernelChoice
    ) {
        let (lower, upper): (Float, Float) = clampsToSix ? (0, 6) : (-.infinity, .infinity)
        switch kernel.instructionSetLevel {
        case avx512...: wbt_scale_bias_avx512(input, rows, channels, scale, bias, lower, upper, residual, output)
        case avx2: wbt_scale_bias_avx2(input, rows, channels, scale, bias, lower, upper, residual, output)
        default:
            ElementwiseKernels.scaleBias(
                input, rows: rows, channels: channels, scale: scale, bias: bias, clampsToSix: clampsToSix,
                residual: residual, output: output)
        }
    }

    /// The backward pass of `scaleBias` without a residual (see `ElementwiseKernels.scaleBiasBackward`).
    static func scaleBiasBackward(
        outputGradient: UnsafePointer<Float>, input: UnsafePointer<Float>?, rows: Int, channels: Int,
        scale: UnsafePointer<Float>?, activationOutput: UnsafePointer<Float>?,
        inputGradient: UnsafeMutablePointer<Float>?, scaleGradient: UnsafeMutablePointer<Float>?,
        biasGradient: UnsafeMutablePointer<Float>, kernel: KernelChoice
    ) {
        switch kernel.instructionSetLevel {
        case avx512...:
            wbt_scale_bias_backward_avx512(
                outputGradient, input, rows, channels, scale, activationOutput, inputGradient, scaleGradient,
                biasGradient)
        case avx2:
            wbt_scale_bias_backward_avx2(
                outputGradient, input, rows, channels, scale, activationOutput, inputGradient, scaleGradient,
                biasGradient)
        default:
            ElementwiseKernels.scaleBiasBackward(
                outputGradient: outputGradient, input: input, rows: rows, channels: channels, scale: scale,
                activationOutput: activationOutput, inputGradient: inputGradient,
                scaleGradient: scaleGradient, biasGradient: biasGradient)
        }
    }

    /// `output [pixels, outputs] = input [pixels, inputs] · weights [inputs, outputs]`, through
    /// `Layers.PointwiseConvolution` (its AVX-512/AVX2 kernels with a zero bias, or BLAS on the portable path).
    static func pointwiseProduct(
        _ input: UnsafePointer<Float>, pixels: Int, weights: [Float], inputs: Int, outputs: Int,
        kernel: KernelChoice, output: UnsafeMutablePointer<Float>
    ) {
        let layer = PointwiseConvolution(
            weightsIO: weights, bias: [Float](repeating: 0, count: outputs), inputChannels: inputs,
            outputChannels: outputs, activation: .none)
        layer.forward(input: input, pixelCount: pixels, output: output, residual: nil, kernel: kernel)
    }

    /// `weightGradient [inputs, outputs] = inputᵀ · outputGradient`, with input `[pixels, inputs]` and
    /// outputGradient `[pixels, outputs]` (a sum over every pixel of the batch).
    /// AVX-512 has its own kernel (Debian's OpenBLAS runs AVX2 code on AVX-512 CPUs it does not know); AVX2 and
    /// the portable path use BLAS. With `accumulates` the product is added to `weightGradient`.
    static func weightGradient(
        input: UnsafePointer<Float>, outputGradient: UnsafePointer<Float>, pixels: Int, inputs: Int,
        outputs: Int, accumulates: Bool = false, kernel: KernelChoice,
        weightGradient: UnsafeMutablePointer<Float>
    ) {
        if kernel.instructionSetLevel >= avx512 {
            wbt_weight_gradient_avx512(input, outputGradient, pixels, inputs, outputs, accumulates ? 1 : 0, weightGradient)
            return
        }
        // C [inputs, outputs] = Aᵀ · B with A = input stored [pixels, inputs] (transposeA) and
        // B = outputGradient stored [pixels, outputs].
        GEMM.multiply(
            m: inputs, n: outputs, k: pixels, a: input, lda: inputs, transposeA: true,
            b: outputGradient, ldb: outputs, c: weightGradient, ldc: outputs, beta: accumulates ? 1 : 0)
    }

    /// A `[rows, columns]` matrix transposed to `[columns, rows]`, in 32 × 32 tiles (a tile's rows of both
    /// matrices stay in L1, where a plain double loop strides through one of them a float at a time).
    static func transposed(_ matrix: UnsafePointer<Float>, rows: Int, columns: Int) -> [Float] {
        let tile = 32
        return [Float](unsafeUninitializedCapacity: rows * columns) { output, initialized in
            let output = output.baseAddress!
            for rowStart in stride(from: 0, to: rows, by: tile) {
                for columnStart in stride(from: 0, to: columns, by: tile) {
                    for row in rowStart..<min(rows, rowStart + tile) {
                        for column in columnStart..<min(columns, columnStart + tile) {
                            output[column * rows + row] = matrix[row * columns + column]
                        }
                    }
                }
            }
            initialized = rows * columns
        }
    }

    /// The sizes of a depthwise convolution (input `[batch, height, width, channels]`, output `[batch, outputHeight,
    /// outputWidth, channels]`, weights `[kernelSize, kernelSize, channels]`).
    struct DepthwiseGeometry {
        let batch: Int, height: Int, width: Int, channels: Int, kernelSize: Int, stride: Int, padding: Padding2D
        let outputHeight: Int, outputWidth: Int
    }

    /// The depthwise backward pass (see `wbt_depthwise_backward_avx512`): `weightGradient` is overwritten with
    /// `Σ input·∂output` per tap; `inputGradient` (when given) with `Σ_taps weights·∂output`, zeroed where the input
    /// is outside (0, 6) when `masksInputGradient` (the input is a ReLU6 output); `inputGradientSum` (when given)
    /// with that gradient summed per channel.
    static func depthwiseBackward(
        input: UnsafePointer<Float>, outputGradient: UnsafePointer<Float>, weights: UnsafePointer<Float>,
        geometry g: DepthwiseGeometry, kernel: KernelChoice, inputGradient: UnsafeMutablePointer<Float>?,
        masksInputGradient: Bool, inputGradientSum: UnsafeMutablePointer<Double>?,
        weightGradient: UnsafeMutablePointer<Float>
    ) {
        let c = g.channels, k = g.kernelSize
        weightGradient.initialize(repeating: 0, count: k * k * c)
        inputGradientSum?.initialize(repeating: 0, count: c)
        let imageSize = g.height * g.width * c, outputSize = g.outputHeight * g.outputWidth * c
        let level = kernel.instructionSetLevel
        if level >= avx2 {
            for n in 0..<g.batch {
                let image = input + n * imageSize, gradient = outputGradient + n * outputSize
                let target = inputGradient.map { $0 + n * imageSize }
                if level >= avx512 {
                    wbt_depthwise_backward_avx512(
                        image, gradient, weights, g.height, g.width, c, k, g.stride, g.padding.top, g.padding.left,
                        g.outputHeight, g.outputWidth, target, masksInputGradient ? 1 : 0, inputGradientSum,
                        weightGradient)
                } else {
                    wbt_depthwise_backward_avx2(
                        image, gradient, weights, g.height, g.width, c, k, g.stride, g.padding.top, g.padding.left,
                        g.outputHeight, g.outputWidth, target, masksInputGradient ? 1 : 0, inputGradientSum,
                        weightGradient)
                }
            }
            return
        }
        // Portable: scatter every tap, then mask and sum in a second pass.
        let needsInputGradient = inputGradient != nil || inputGradientSum != nil
        let scratch = needsInputGradient && inputGradient == nil ? UnsafeMutablePointer<Float>.allocate(capacity: g.batch * imageSize) : nil
        defer { scratch?.deallocate() }
        let target = inputGradient ?? scratch
        target?.initialize(repeating: 0, count: g.batch * imageSize)
        for n in 0..<g.batch {
            scatterBackward(
                image: input + n * imageSize, outputGradient: outputGradient + n * outputSize, weights: weights, geometry: g,
                imageGradient: target.map { $0 + n * imageSize }, weightGradient: weightGradient)
        }
        guard let target else { return }
        for pixel in 0..<(g.batch * g.height * g.width) {
            let values = target + pixel * c, inputs = input + pixel * c
            if masksInputGradient {
                for channel in 0..<c where !(inputs[channel] > 0 && inputs[channel] < 6) { values[channel] = 0 }
            }
            if let inputGradientSum {
                for channel in 0..<c { inputGradientSum[channel] += Double(values[channel]) }
            }
        }
    }

    /// One image of the portable depthwise backward pass: each output pixel's gradient scattered through its
    /// in-bounds taps, channels innermost (vectorised). Accumulates into both gradients.
    private static func scatterBackward(
        image: UnsafePointer<Float>, outputGradient: UnsafePointer<Float>, weights: UnsafePointer<Float>,
        geometry g: DepthwiseGeometry, imageGradient: UnsafeMutablePointer<Float>?,
        weightGradient: UnsafeMutablePointer<Float>
    ) {
        let c = g.channels, k = g.kernelSize, s = g.stride
        for oy in 0..<g.outputHeight {
            for ox in 0..<g.outputWidth {
                let gradient = outputGradient + (oy * g.outputWidth + ox) * c
                for ky in 0..<k {
                    let iy = oy * s - g.padding.top + ky
                    guard iy >= 0 && iy < g.height else { continue }
                    for kx in 0..<k {
                        let ix = ox * s - g.padding.left + kx
                        guard ix >= 0 && ix < g.width else { continue }
                        let pixel = (iy * g.width + ix) * c, tap = (ky * k + kx) * c
                        let source = image + pixel, tapGradient = weightGradient + tap
                        for channel in 0..<c { tapGradient[channel] += source[channel] * gradient[channel] }
                        if let imageGradient {
                            let target = imageGradient + pixel, tapWeights = weights + tap
                            for channel in 0..<c { target[channel] += tapWeights[channel] * gradient[channel] }
                        }
                    }
                }
            }
        }
    }
}
