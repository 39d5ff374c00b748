import Layers
import TensorCore

/// A dense (ungrouped) square convolution without bias, TensorFlow SAME padding: EfficientNet-Lite0's stem
/// (3×3, stride 2, 3 → 32 channels).
///
/// Shapes: input `[batch, height, width, inputChannels]` → output `[batch, outHeight, outWidth, outputChannels]`;
/// weights `[kernelSize, kernelSize, inputChannels, outputChannels]` (HWIO), which read as a matrix
/// `[k·k·inputChannels, outputChannels]` multiply the patch matrix `[pixels, k·k·inputChannels]` (im2col).
/// Backward: `∂W = Patchesᵀ·∂Y`; `∂X` is `∂Y·Wᵀ` scattered back from patches to pixels (col2im).
public struct ConvolutionLayer<Scalar: BinaryFloatingPoint & Sendable>: SquareWindowConvolution, Sendable {
    /// `[kernelSize, kernelSize, inputChannels, outputChannels]`.
    public var weights: Tensor<Scalar>
    /// Step between windows, the same on both axes.
    public let stride: Int
    /// How the input is padded.
    public let padding: PaddingRule

    /// A layer with HWIO weights.
    public init(weights: Tensor<Scalar>, stride: Int, padding: PaddingRule = .tensorFlowSame) {
        Self.checkWindow(
            weights: weights, rank: 4, stride: stride, layer: "ConvolutionLayer",
            layout: "[kernelSize, kernelSize, inputChannels, outputChannels]")
        self.weights = weights
        self.stride = stride
        self.padding = padding
    }

    /// Channels of the input.
    public var inputChannels: Int { weights.shape[2] }
    /// Channels of the output.
    public var outputChannels: Int { weights.shape[3] }

    /// The layer in another precision.
    public func converted<Other: BinaryFloatingPoint & Sendable>(to _: Other.Type) -> ConvolutionLayer<Other> {
        ConvolutionLayer<Other>(weights: weights.converted(), stride: stride, padding: padding)
    }

    /// The naive reference forward pass: direct loops over the window's in-bounds taps, double-precision sums.
    public func referenceForward(_ input: Tensor<Scalar>, mode: ForwardMode) -> (output: Tensor<Scalar>, cache: Cache?) {
        checkInput(input)
        let (batch, height, width, _) = input.nhwc
        let (_, outputHeight, outputWidth) = geometry(height: height, width: width)
        let inputs = inputChannels, outputs = outputChannels
        var sums = [Double](repeating: 0, count: batch * outputHeight * outputWidth * outputs)
        forEachTapInsideImage(batch: batch, height: height, width: width) { outputPixel, tap, inputPixel in
            for i in 0..<inputs {
                let value = Double(input.storage[inputPixel * inputs + i])
                for o in 0..<outputs { sums[outputPixel * outputs + o] += value * Double(weights.storage[(tap * inputs + i) * outputs + o]) }
            }
        }
        let output = Tensor(shape: [batch, outputHeight, outputWidth, outputs], storage: sums.map { Scalar($0) })
        return (output, mode == .training ? Cache(input: input) : nil)
    }

    /// The naive reference backward pass, tap by tap in double precision.
    public func referenceBackward(
        _ outputGradient: Tensor<Scalar>, cache: Cache,
        computesInputGradient: Bool = true
    ) -> (input: Tensor<Scalar>?, gradients: Gradients) {
        let input = cache.input
        checkOutputGradient(outputGradient, input: input)
        let (batch, height, width, _) = input.nhwc
        let inputs = inputChannels, outputs = outputChannels
        var inputSums = [Double](repeating: 0, count: computesInputGradient ? input.count : 0)
        var weightSums = [Double](repeating: 0, count: weights.count)
        forEachTapInsideImage(batch: batch, height: height, width: width) { outputPixel, tap, inputPixel in
            for i in 0..<inputs {
                for o in 0..<outputs {
                    let gradient = Double(outputGradient.storage[outputPixel * outputs + o])
                    weightSums[(tap * inputs + i) * outputs + o] += Double(input.storage[inputPixel * inputs + i]) * gradient
                    if computesInputGradient {
                        inputSums[inputPixel * inputs + i] += Double(weights.storage[(tap * inputs + i) * outputs + o]) * gradient
                    }
                }
            }
        }
        let inputGradient = computesInputGradient ? Tensor(shape: input.shape, storage: inputSums.map { Scalar($0) }) : nil
        return (inputGradient, Gradients(weights: Tensor(shape: weights.shape, storage: weightSums.map { Scalar($0) })))
    }
}

extension ConvolutionLayer where Scalar == Float {
    /// The fast forward pass: `Layers.Convolution2D` (im2col tiles and the vector kernels) with a zero bias.
    public func forward(
        _ input: Tensor<Float>, mode: ForwardMode,
        kernel: KernelChoice = .automatic
    ) -> (output: Tensor<Float>, cache: Cache?) {
        let layer = Convolution2D(
            weightsHWIO: weights.scalars, bias: [Float](repeating: 0, count: outputChannels),
            inputChannels: inputChannels, outputChannels: outputChannels, kernelSize: kernelSize,
            stride: stride, padding: padding, activation: .none)
        return (inferenceForward(input, through: layer, kernel: kernel), mode == .training ? Cache(input: input) : nil)
    }

    /// Output pixels per im2col tile of the backward pass: the tile's patches and their gradients stay in L2.
    static var tileRows: Int { 512 }

    /// The fast backward pass: per tile of output pixels, gather the patches, `∂W += Patchesᵀ·∂Y` (the 1×1 weight
    /// gradient's kernel) and, when the input gradient is wanted, `∂Patches = ∂Y·Wᵀ` (BLAS) scattered back onto
    /// the input.
    public func backward(
        _ outputGradient: Tensor<Float>, cache: Cache, computesInputGradient: Bool = true,
        kernel: KernelChoice = .automatic
    ) -> (input: Tensor<Float>?, gradients: Gradients) {
        let input = cache.input
        let (batch, height, width, _) = input.nhwc
        let (pad, outputHeight, outputWidth) = geometry(height: height, width: width)
        checkOutputGradient(outputGradient, input: input)
        let patchLength = kernelSize * kernelSize * inputChannels, outputs = outputChannels
        let imagePixels = outputHeight * outputWidth
        var weightGradient = [Float](repeating: 0, count: weights.count)
        var inputGradient = [Float](repeating: 0, count: computesInputGradient ? input.count : 0)
        let patchGeometry = PatchGeometry(
            height: height, width: width, channels: inputChannels, kernelSize: kernelSize,
            stride: stride, padding: pad, outputWidth: outputWidth)
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * Self.tileRows * patchLength) { scratch in
            let patches = scratch.baseAddress!, patchGradients = patches + Self.tileRows * patchLength
            input.withUnsafeBufferPointer { input in
                outputGradient.withUnsafeBufferPointer { outputGradient in
                    weights.withUnsafeBufferPointer { weights in
                        weightGradient.withUnsafeMutableBufferPointer { weightGradient in
                            inputGradient.withUnsafeMutableBufferPointer { inputGradient in
                                for n in 0..<batch {
                                    let image = input.baseAddress! + n * height * width * inputChannels
                                    for first in Swift.stride(from: 0, to: imagePixels, by: Self.tileRows) {
                                        let rows = min(Self.tileRows, imagePixels - first)
                                        let tileGradient = outputGradient.baseAddress! + (n * imagePixels + first) * outputs
                                        patchGeometry.gather(image: image, firstPixel: first, count: rows, patches: patches)
                                        TrainingKernels.weightGradient(
                                            input: patches, outputGradient: tileGradient, pixels: rows,
                                            inputs: patchLength, outputs: outputs, accumulates: true,
                                            kernel: kernel, weightGradient: weightGradient.baseAddress!)
                                        guard computesInputGradient else { continue }
                                        GEMM.multiply(
                                            m: rows, n: patchLength, k: outputs,
                                            a: tileGradient, lda: outputs,
                                            b: weights.baseAddress!, ldb: outputs, transposeB: true,
                                            c: patchGradients, ldc: patchLength)
                                        patchGeometry.scatter(
                                            patchGradients: patchGradients, firstPixel: first, count: rows,
                                            image: inputGradient.baseAddress! + n * height * width * inputChannels)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return (
            computesInputGradient ? Tensor(shape: input.shape, storage: inputGradient) : nil,
            Gradients(weights: Tensor(shape: weights.shape, storage: weightGradient))
        )
    }
}

extension ConvolutionLayer where Scalar == Float {
    /// `ReLU6(conv(input, weights·scale) + bias)`: the convolution and the scale-bias after it in one pass of the
    /// inference kernels (see `FoldedScale`).
    func fusedForward(_ input: Tensor<Float>, _ scaleBias: ChannelScaleBiasLayer<Float>, kernel: KernelChoice) -> Tensor<Float> {
        let layer = Convolution2D(
            weightsHWIO: FoldedScale.fold(weights, scaleBias.scale), bias: scaleBias.bias.scalars,
            inputChannels: inputChannels, outputChannels: outputChannels, kernelSize: kernelSize, stride: stride,
            padding: padding, activation: .relu6)
        return inferenceForward(input, through: layer, kernel: kernel)
    }

    /// The weight, scale and bias gradients of `fusedForward` from `preActivationGradient` (the gradient before its
    /// ReLU6) and that gradient's per-channel sum. The input gradient is never needed: the stem reads the images.
    func fusedBackward(
        _ preActivationGradient: Tensor<Float>, biasGradient: Tensor<Float>, input: Tensor<Float>,
        _ scaleBias: ChannelScaleBiasLayer<Float>,
        kernel: KernelChoice
    ) -> (gradients: Gradients, scaleBias: ChannelScaleBiasLayer<Float>.Gradients) {
        // Without the input gradient, the weights do not enter the backward pass: it yields G, the folded weights' gradient.
        let folded = backward(preActivationGradient, cache: Cache(input: input), computesInputGradient: false, kernel: kernel)
        let unfolded = FoldedScale.unfold(folded.gradients.weights, weights: weights, scale: scaleBias.scale)
        return (Gradients(weights: unfolded.weights), .init(scale: unfolded.scale, bias: biasGradient))
    }
}

/// Where each row of an im2col patch matrix reads in one image: patch row `p` is output pixel `p`, its columns
/// the `[kernelSize, kernelSize, channels]` window (tap-major, channels innermost), zero over the padding.
struct PatchGeometry {
    let height: Int, width: Int, channels: Int, kernelSize: Int, stride: Int, padding: Padding2D, outputWidth: Int

    /// Calls `body(column, pixelOffset)` for the in-bounds taps of output pixel `pixel`: `column` is the tap's
    /// first column in the patch row, `pixelOffset` the image offset of the pixel under it.
    @inline(__always)
    func forEachTap(of pixel: Int, _ body: (Int, Int) -> Void) {
        let oy = pixel / outputWidth, ox = pixel % outputWidth
        for ky in 0..<kernelSize {
            let iy = oy * stride - padding.top + ky
            guard iy >= 0 && iy < height else { continue }
            for kx in 0..<kernelSize {
                let ix = ox * stride - padding.left + kx
                guard ix >= 0 && ix < width else { continue }
                body((ky * kernelSize + kx) * channels, (iy * width + ix) * channels)
            }
        }
    }

    /// Patch rows `[firstPixel, firstPixel + count)`: `patches [count, k·k·channels]` from `image [height, width, channels]`.
    func gather(image: UnsafePointer<Float>, firstPixel: Int, count: Int, patches: UnsafeMutablePointer<Float>) {
        let length = kernelSize * kernelSize * channels
        patches.update(repeating: 0, count: count * length)
        for row in 0..<count {
            let patch = patches + row * length
            forEachTap(of: firstPixel + row) { column, offset in
                (patch + column).update(from: image + offset, count: channels)
            }
        }
    }

    /// The adjoint of `gather`: adds each patch row's values onto the image pixels it was gathered from.
    func scatter(patchGradients: UnsafePointer<Float>, firstPixel: Int, count: Int, image: UnsafeMutablePointer<Float>) {
        let length = kernelSize * kernelSize * channels
        for row in 0..<count {
            let patch = patchGradients + row * length
            forEachTap(of: firstPixel + row) { column, offset in
                for channel in 0..<channels { image[offset + channel] += patch[column + channel] }
            }
        }
    }
}
