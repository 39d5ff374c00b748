import Layers
import TensorCore

/// The fast layers' heavy loops: products through `Layers`' vector kernels and BLAS, and the depthwise backward
/// pass. Every call takes a `KernelChoice`, so tests run each instruction-set level against the references.
enum TrainingKernels {
    /// `output [pixels, outputs] = input [pixels, inputs] · weights [inputs, outputs]`, through
    /// `Layers.PointwiseConvolution` (its AVX-512/AVX2 kernels with a zero bias, or BLAS on the portable path).
    static func pointwiseProduct(_ input: [Float], pixels: Int, weights: [Float], inputs: Int, outputs: Int,
                                 kernel: KernelChoice) -> [Float] {
        let layer = PointwiseConvolution(weightsIO: weights, bias: [Float](repeating: 0, count: outputs), inputChannels: inputs,
                                         outputChannels: outputs, activation: .none)
        return [Float](unsafeUninitializedCapacity: pixels * outputs) { output, initialized in
            input.withUnsafeBufferPointer { input in
                layer.forward(input: input.baseAddress!, pixelCount: pixels, output: output.baseAddress!, residual: nil, kernel: kernel)
            }
            initialized = pixels * outputs
        }
    }

    /// `∂W [inputs, outputs] = inputᵀ · outputGradient`, with input `[pixels, inputs]` and outputGradient
    /// `[pixels, outputs]` (a sum over every pixel of the batch).
    static func weightGradient(input: [Float], outputGradient: [Float], pixels: Int, inputs: Int, outputs: Int,
                               kernel: KernelChoice) -> [Float] {
        [Float](unsafeUninitializedCapacity: inputs * outputs) { gradient, initialized in
            input.withUnsafeBufferPointer { input in
                outputGradient.withUnsafeBufferPointer { outputGradient in
                    // C [inputs, outputs] = Aᵀ · B with A = input stored [pixels, inputs] (transposeA) and
                    // B = outputGradient stored [pixels, outputs].
                    GEMM.multiply(m: inputs, n: outputs, k: pixels, a: input.baseAddress!, lda: inputs, transposeA: true,
                                  b: outputGradient.baseAddress!, ldb: outputs, c: gradient.baseAddress!, ldc: outputs)
                }
            }
            initialized = inputs * outputs
        }
    }

    /// A `[rows, columns]` matrix transposed to `[columns, rows]`.
    static func transposed(_ matrix: [Float], rows: Int, columns: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: rows * columns) { output, initialized in
            matrix.withUnsafeBufferPointer { matrix in
                for row in 0..<rows {
                    for column in 0..<columns { output[column * rows + row] = matrix[row * columns + column] }
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

    /// The depthwise backward pass: `∂weights` always, `∂input` when asked.
    static func depthwiseBackward(input: [Float], outputGradient: [Float], weights: [Float], geometry: DepthwiseGeometry,
                                  computesInputGradient: Bool, kernel: KernelChoice) -> (input: [Float]?, weights: [Float]) {
        let g = geometry, c = g.channels, k = g.kernelSize, s = g.stride
        var inputGradient = [Float](repeating: 0, count: computesInputGradient ? input.count : 0)
        var weightGradient = [Float](repeating: 0, count: weights.count)
        input.withUnsafeBufferPointer { input in
            outputGradient.withUnsafeBufferPointer { outputGradient in
                weights.withUnsafeBufferPointer { weights in
                    inputGradient.withUnsafeMutableBufferPointer { inputGradient in
                        weightGradient.withUnsafeMutableBufferPointer { weightGradient in
                            let input = input.baseAddress!, outputGradient = outputGradient.baseAddress!
                            let weights = weights.baseAddress!, weightGradient = weightGradient.baseAddress!
                            for n in 0..<g.batch {
                                let image = input + n * g.height * g.width * c
                                // An empty array's base address may be non-nil: the flag decides, not the pointer.
                                let imageGradient = computesInputGradient ? inputGradient.baseAddress! + n * g.height * g.width * c : nil
                                for oy in 0..<g.outputHeight {
                                    for ox in 0..<g.outputWidth {
                                        let gradient = outputGradient + ((n * g.outputHeight + oy) * g.outputWidth + ox) * c
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
                    }
                }
            }
        }
        return (computesInputGradient ? inputGradient : nil, weightGradient)
    }
}
