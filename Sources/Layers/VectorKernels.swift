import CKernels

/// Which implementation a layer runs. `.automatic` takes the AVX2 + FMA kernels of `CKernels` when the CPU
/// has them and the portable Swift/BLAS path otherwise; `.portable` forces the latter (tests compare both).
public enum KernelChoice: Sendable {
    /// The fastest kernels this CPU supports.
    case automatic
    /// The portable path (Swift loops and OpenBLAS), whatever the CPU.
    case portable

    /// Whether this choice runs the AVX2 kernels on this machine.
    var usesVectorKernels: Bool { self == .automatic && VectorKernels.isAvailable }
}

/// The only Swift file that calls `CKernels`: AVX2 + FMA kernels behind a once-per-process CPU check.
enum VectorKernels {
    /// True when the CPU and OS support AVX2 and FMA. Checked once; the kernels must never run otherwise.
    static let isAvailable: Bool = wb_kernels_available() != 0

    /// IO weights `[inputs, outputs]` repacked into the column panels `pointwise` reads; empty when the kernels
    /// are unavailable (the portable path reads the IO weights directly).
    static func packPointwise(_ weightsIO: [Float], inputs: Int, outputs: Int) -> [Float] {
        guard isAvailable else { return [] }
        let count = Int(wb_packed_pointwise_count(inputs, outputs))
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            weightsIO.withUnsafeBufferPointer { weights in
                wb_pack_pointwise_weights(weights.baseAddress!, inputs, outputs, buffer.baseAddress!)
            }
            initialized = count
        }
    }

    /// `output[p, o] = clamp(Σᵢ input[p, i]·W[i, o] + bias[o]) + residual[p, o]`.
    ///
    /// Shapes: input `[pixels, inputs]` with row stride `inputStride`, packed from `packPointwise`, bias
    /// `[outputs]`, residual and output `[pixels, outputs]`.
    static func pointwise(
        input: UnsafePointer<Float>, pixels: Int, inputs: Int, inputStride: Int,
        packed: UnsafePointer<Float>, outputs: Int, bias: UnsafePointer<Float>,
        activation: Activation, residual: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>
    ) {
        precondition(isAvailable, "VectorKernels.pointwise needs AVX2 and FMA")
        let (lower, upper) = activation.clampBounds
        wb_pointwise_avx2(input, pixels, inputs, inputStride, packed, outputs, bias, lower, upper, residual, output)
    }

    /// Depthwise convolution of one image. Shapes: input `[height, width, channels]`, weights HWC
    /// `[kernel, kernel, channels]`, bias `[channels]`, output `[outputHeight, outputWidth, channels]`.
    static func depthwise(
        input: UnsafePointer<Float>, height: Int, width: Int, channels: Int,
        weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, kernelSize: Int, stride: Int,
        padding: Padding2D, outputHeight: Int, outputWidth: Int, activation: Activation,
        output: UnsafeMutablePointer<Float>
    ) {
        precondition(isAvailable, "VectorKernels.depthwise needs AVX2 and FMA")
        let (lower, upper) = activation.clampBounds
        wb_depthwise_avx2(input, height, width, channels, weights, bias, kernelSize, stride,
                          padding.top, padding.left, outputHeight, outputWidth, lower, upper, output)
    }
}

extension Activation {
    /// The activation as a clamp: ReLU6 is `[0, 6]`, the identity `[−∞, ∞]`.
    var clampBounds: (lower: Float, upper: Float) {
        switch self {
        case .none: return (-.infinity, .infinity)
        case .relu6: return (0, 6)
        }
    }
}
