import CKernels
import Foundation

/// Which implementation a layer runs. `.automatic` takes the widest `CKernels` kernels the CPU supports
/// (AVX-512, else AVX2 + FMA) and the portable Swift/BLAS path on other CPUs; the other cases cap the choice
/// (tests run every level the machine has against the reference).
public enum KernelChoice: Sendable, CaseIterable {
    /// The fastest kernels this CPU supports.
    case automatic
    /// At most the AVX2 + FMA kernels (portable when the CPU lacks them).
    case avx2
    /// The portable path (Swift loops and OpenBLAS), whatever the CPU.
    case portable

    /// The instruction set this choice runs on this machine.
    var level: VectorKernels.Level {
        switch self {
        case .automatic: return VectorKernels.level
        case .avx2: return min(VectorKernels.level, .avx2)
        case .portable: return .portable
        }
    }

    /// Whether this choice runs `CKernels` on this machine.
    var usesVectorKernels: Bool { level != .portable }

    /// The instruction set this choice runs on this machine, for other modules' kernels (the one CPU check and
    /// `WORKBENCH_KERNELS` cap stay here): 0 portable, 1 AVX2 + FMA, 2 AVX-512.
    public var instructionSetLevel: Int { level.rawValue }
}

/// The only Swift file that calls `CKernels`: AVX2 + FMA and AVX-512 kernels behind a once-per-process CPU check.
enum VectorKernels {
    /// Instruction sets, in order.
    enum Level: Int, Comparable {
        case portable = 0, avx2 = 1, avx512 = 2
        static func < (left: Level, right: Level) -> Bool { left.rawValue < right.rawValue }
    }

    /// What the CPU and OS support, capped by `WORKBENCH_KERNELS` (`portable`, `avx2`; for comparing the paths
    /// on one machine, like OpenBLAS's `OPENBLAS_CORETYPE`). Checked once; a kernel must never run above it.
    static let level: Level = {
        let supported = Level(rawValue: Int(wb_kernel_level())) ?? .portable
        switch getenv("WORKBENCH_KERNELS").map({ String(cString: $0) }) {
        case "portable": return .portable
        case "avx2": return min(supported, .avx2)
        default: return supported
        }
    }()
    /// True when at least the AVX2 + FMA kernels can run.
    static var isAvailable: Bool { level != .portable }

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

    /// `output[p, o] = clamp(Σᵢ input[p, i]·W[i, o] + bias[o]) + residual[p, o]`; `following` is the packed
    /// weights of the layer that runs next, which the kernel starts pulling into cache.
    ///
    /// Shapes: input `[pixels, inputs]` with row stride `inputStride`, packed from `packPointwise`, bias
    /// `[outputs]`, residual and output `[pixels, outputs]`.
    static func pointwise(
        input: UnsafePointer<Float>, pixels: Int, inputs: Int, inputStride: Int,
        packed: UnsafePointer<Float>, outputs: Int, bias: UnsafePointer<Float>,
        activation: Activation, residual: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>,
        level: Level, following: UnsafePointer<Float>? = nil
    ) {
        precondition(level != .portable && level <= self.level, "VectorKernels.pointwise: \(level) unsupported here")
        let (lower, upper) = activation.clampBounds
        if level == .avx512 {
            wb_pointwise_avx512(input, pixels, inputs, inputStride, packed, outputs, bias, lower, upper, residual, following, output)
        } else {
            wb_pointwise_avx2(input, pixels, inputs, inputStride, packed, outputs, bias, lower, upper, residual, following, output)
        }
    }

    /// Depthwise convolution of output rows `outputRows` of one image.
    ///
    /// Shapes: the image is `[height, width, channels]`, of which `input` holds the rows from `inputFirstRow` on;
    /// weights HWC `[kernel, kernel, channels]`, bias `[channels]`; output `[outputRows.count, outputWidth, channels]`.
    static func depthwise(
        input: UnsafePointer<Float>, height: Int, width: Int, channels: Int,
        weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, kernelSize: Int, stride: Int,
        padding: Padding2D, outputWidth: Int, outputRows: Range<Int>, inputFirstRow: Int, activation: Activation,
        output: UnsafeMutablePointer<Float>, level: Level
    ) {
        precondition(level != .portable && level <= self.level, "VectorKernels.depthwise: \(level) unsupported here")
        let (lower, upper) = activation.clampBounds
        if level == .avx512 {
            wb_depthwise_avx512(
                input, height, width, channels, weights, bias, kernelSize, stride, padding.top, padding.left,
                outputWidth, outputRows.lowerBound, outputRows.upperBound, inputFirstRow, lower, upper, output)
        } else {
            wb_depthwise_avx2(
                input, height, width, channels, weights, bias, kernelSize, stride, padding.top, padding.left,
                outputWidth, outputRows.lowerBound, outputRows.upperBound, inputFirstRow, lower, upper, output)
        }
    }
}

/// im2col rows `[firstPixel, firstPixel + count)` of one image (portable C; see `Convolution2D`).
/// Shapes: image `[height, width, channels]`, patches `[count, kernelSize·kernelSize·channels]`.
func gatherPatches(
    image: UnsafePointer<Float>, height: Int, width: Int, channels: Int, kernelSize: Int, stride: Int,
    padding: Padding2D, outputWidth: Int, firstPixel: Int, count: Int, patches: UnsafeMutablePointer<Float>
) {
    wb_gather_patches(
        image, height, width, channels, kernelSize, stride, padding.top, padding.left, outputWidth,
        firstPixel, count, patches)
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
