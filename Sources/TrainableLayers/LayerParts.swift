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

/// A convolution with a square window sliding over the image: the stem and the depthwise convolutions share the
/// padding and output-size arithmetic, which must match the inference kernels' (`Layers.PaddingRule`).
public protocol SquareWindowConvolution {
    associatedtype Scalar: BinaryFloatingPoint & Sendable
    /// Weights whose first two axes are the window, `[kernelSize, kernelSize, …]`.
    var weights: Tensor<Scalar> { get }
    /// Step between windows, the same on both axes.
    var stride: Int { get }
    /// How the input is padded.
    var padding: PaddingRule { get }
}

extension SquareWindowConvolution {
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
        precondition(weights.rank == rank && weights.shape[0] == weights.shape[1] && weights.shape[0] > 0,
                     "\(layer): weights must be \(layout)")
        precondition(stride > 0, "\(layer): stride must be positive")
    }
}
