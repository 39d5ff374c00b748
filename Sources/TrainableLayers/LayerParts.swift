import Layers

/// What the backward pass of a layer that needs only its input reads: the forward pass's input. One type for the
/// convolutions, the scale-bias and the dense layer, so each names it `Cache` without spelling it again.
public struct InputCache<Scalar: BinaryFloatingPoint & Sendable>: Sendable {
    /// The forward pass's input.
    public let input: Tensor<Scalar>
    /// A cache holding `input`.
    public init(input: Tensor<Scalar>) { self.input = input }
}

/// The loss's gradient for a layer whose only parameter is its weights (the three convolutions), laid out like
/// those weights.
public struct WeightGradients<Scalar: BinaryFloatingPoint & Sendable>: Sendable, Equatable {
    /// The gradient of `weights`, in the layer's weight layout.
    public var weights: Tensor<Scalar>

    /// Adds another part of the batch's gradients.
    public static func += (left: inout Self, right: Self) { left.weights += right.weights }
}

/// The references' matrix product: `C[r, c] = start(r, c) + Σ_j left(r, j)·right(j, c)` for `C` row-major
/// `[rows, columns]`, summed in double precision in ascending `j` and rounded once to `Scalar`. The operands are
/// read through closures, so each reference states its own layouts (a transpose, NHWC as `[pixels, channels]`)
/// where it calls this, and reads them in place.
func referenceProduct<Scalar: BinaryFloatingPoint>(
    rows: Int, columns: Int, depth: Int,
    start: (_ row: Int, _ column: Int) -> Double = { _, _ in 0 },
    _ left: (_ row: Int, _ inner: Int) -> Double,
    _ right: (_ inner: Int, _ column: Int) -> Double
) -> [Scalar] {
    var product = [Scalar](repeating: 0, count: rows * columns)
    for row in 0..<rows {
        for column in 0..<columns {
            var sum = start(row, column)
            for inner in 0..<depth { sum += left(row, inner) * right(inner, column) }
            product[row * columns + column] = Scalar(sum)
        }
    }
    return product
}

/// A convolution with a square window sliding over the image: the stem and the depthwise convolutions share the
/// padding and output-size arithmetic, which must match the inference kernels' (`Layers.PaddingRule`), the walk
/// over the window's taps that their references sum, and the plumbing around their fast forward passes.
public protocol SquareWindowConvolution {
    associatedtype Scalar: BinaryFloatingPoint & Sendable
    /// Weights whose first two axes are the window, `[kernelSize, kernelSize, …]`.
    var weights: Tensor<Scalar> { get }
    /// Step between windows, the same on both axes.
    var stride: Int { get }
    /// How the input is padded.
    var padding: PaddingRule { get }
    /// Channels of the input.
    var inputChannels: Int { get }
    /// Channels of the output.
    var outputChannels: Int { get }
}

extension SquareWindowConvolution {
    /// What the backward pass reads: the input.
    public typealias Cache = InputCache<Scalar>

    /// The loss's gradient with respect to each parameter, laid out like `weights`.
    public typealias Gradients = WeightGradients<Scalar>

    /// Side of the square kernel.
    public var kernelSize: Int { weights.shape[0] }

    /// The padding and output size for an input of `height` × `width`.
    public func geometry(height: Int, width: Int) -> (padding: Padding2D, outputHeight: Int, outputWidth: Int) {
        let pad = padding.resolve(inputHeight: height, inputWidth: width, kernelSize: kernelSize, stride: stride)
        let size = padding.outputSize(inputHeight: height, inputWidth: width, kernelSize: kernelSize, stride: stride)
        return (pad, size.height, size.width)
    }

    /// Checks the weights of a new layer: rank `rank`, a non-empty square window, a positive stride.
    static func checkWindow(weights: Tensor<Scalar>, rank: Int, stride: Int, layer: String, layout: String) {
        precondition(
            weights.rank == rank && weights.shape[0] == weights.shape[1] && weights.shape[0] > 0,
            "\(layer): weights must be \(layout)")
        precondition(stride > 0, "\(layer): stride must be positive")
    }

    /// Checks that `input` is NHWC with this layer's input channels.
    func checkInput(_ input: Tensor<Scalar>) {
        precondition(input.nhwc.channels == inputChannels, "\(Self.self): input \(input.shape) for \(inputChannels) channels")
    }

    /// Checks that `outputGradient` has the shape of the output for `input`.
    func checkOutputGradient(_ outputGradient: Tensor<Scalar>, input: Tensor<Scalar>) {
        let (batch, height, width, _) = input.nhwc
        let (_, outputHeight, outputWidth) = geometry(height: height, width: width)
        precondition(outputGradient.shape == [batch, outputHeight, outputWidth, outputChannels], "\(Self.self): gradient shape")
    }

    /// The references' walk over the window: calls `body(outputPixel, tap, inputPixel)` for every output pixel of
    /// a batch of `batch` images of `height` × `width` (row-major, image by image) and each tap of its window that
    /// lies inside the image (row-major), the order in which the references sum. `outputPixel` and `inputPixel`
    /// count pixels across the batch (`(n·height + y)·width + x`) and `tap` is `ky·kernelSize + kx`: each times
    /// its channel count is an offset.
    func forEachTapInsideImage(batch: Int, height: Int, width: Int, _ body: (_ outputPixel: Int, _ tap: Int, _ inputPixel: Int) -> Void) {
        let (pad, outputHeight, outputWidth) = geometry(height: height, width: width)
        let k = kernelSize, s = stride
        for n in 0..<batch {
            for oy in 0..<outputHeight {
                for ox in 0..<outputWidth {
                    for ky in 0..<k {
                        for kx in 0..<k {
                            let iy = oy * s - pad.top + ky, ix = ox * s - pad.left + kx
                            guard iy >= 0, iy < height, ix >= 0, ix < width else { continue }
                            body((n * outputHeight + oy) * outputWidth + ox, ky * k + kx, (n * height + iy) * width + ix)
                        }
                    }
                }
            }
        }
    }
}

extension SquareWindowConvolution where Scalar == Float {
    /// `input` through `layer`, an inference kernel built from this layer's weights: the fast forward passes'
    /// shape check, output allocation and kernel call.
    func inferenceForward(_ input: Tensor<Float>, through layer: some WindowConvolution, kernel: KernelChoice) -> Tensor<Float> {
        checkInput(input)
        let (batch, height, width, _) = input.nhwc
        let (_, outputHeight, outputWidth) = geometry(height: height, width: width)
        return Tensor<Float>(shape: [batch, outputHeight, outputWidth, outputChannels]) { output in
            input.withUnsafeBufferPointer { source in
                layer.forward(
                    input: source.baseAddress!, batch: batch, height: height, width: width, output: output.baseAddress!,
                    kernel: kernel)
            }
        }
    }
}
