/// Zero padding around each image of a batch, in pixels on each side.
public struct Padding2D: Sendable, Equatable, CustomStringConvertible {
    public var top: Int
    public var bottom: Int
    public var left: Int
    public var right: Int

    /// Padding with the given pixel counts per side.
    public init(top: Int, bottom: Int, left: Int, right: Int) {
        precondition(top >= 0 && bottom >= 0 && left >= 0 && right >= 0, "Padding2D: negative padding")
        self.top = top
        self.bottom = bottom
        self.left = left
        self.right = right
    }

    /// No padding.
    public static let zero = Padding2D(top: 0, bottom: 0, left: 0, right: 0)

    /// TensorFlow's "SAME" padding along one axis: the output has `ceil(inputSize / stride)` positions and the
    /// missing `total = max((output - 1)·stride + kernelSize - inputSize, 0)` pixels go `total / 2` before and
    /// the rest after. On even inputs with stride 2 this is asymmetric (more after), which is what the
    /// pretrained EfficientNet-Lite0 weights expect; symmetric padding would shift every window by a pixel.
    public static func tensorFlowSame(inputSize: Int, kernelSize: Int, stride: Int) -> (before: Int, after: Int) {
        precondition(inputSize > 0 && kernelSize > 0 && stride > 0, "tensorFlowSame: sizes must be positive")
        let outputSize = (inputSize + stride - 1) / stride
        let total = max((outputSize - 1) * stride + kernelSize - inputSize, 0)
        return (total / 2, total - total / 2)
    }

    /// TensorFlow "SAME" padding for both axes of a square kernel.
    public static func tensorFlowSame(inputHeight: Int, inputWidth: Int, kernelSize: Int, stride: Int) -> Padding2D {
        let vertical = tensorFlowSame(inputSize: inputHeight, kernelSize: kernelSize, stride: stride)
        let horizontal = tensorFlowSame(inputSize: inputWidth, kernelSize: kernelSize, stride: stride)
        return Padding2D(top: vertical.before, bottom: vertical.after, left: horizontal.before, right: horizontal.after)
    }

    public var description: String { "Padding2D(top: \(top), bottom: \(bottom), left: \(left), right: \(right))" }
}

/// How a convolution layer pads its input: decided per input size (TensorFlow SAME) or fixed.
public enum PaddingRule: Sendable, Equatable {
    /// TensorFlow "SAME": the output is `ceil(input / stride)` on each axis.
    case tensorFlowSame
    /// The same fixed padding for every input size.
    case explicit(Padding2D)

    /// The padding for an input of the given size.
    public func resolve(inputHeight: Int, inputWidth: Int, kernelSize: Int, stride: Int) -> Padding2D {
        switch self {
        case .tensorFlowSame:
            return Padding2D.tensorFlowSame(inputHeight: inputHeight, inputWidth: inputWidth, kernelSize: kernelSize, stride: stride)
        case .explicit(let padding):
            return padding
        }
    }

    /// Output height and width of a `kernelSize` × `kernelSize` window at `stride` over an input of the given
    /// size, padded by this rule.
    public func outputSize(inputHeight: Int, inputWidth: Int, kernelSize: Int, stride: Int) -> (height: Int, width: Int) {
        let pad = resolve(inputHeight: inputHeight, inputWidth: inputWidth, kernelSize: kernelSize, stride: stride)
        return (
            convolutionOutputSize(inputSize: inputHeight, kernelSize: kernelSize, stride: stride, before: pad.top, after: pad.bottom),
            convolutionOutputSize(inputSize: inputWidth, kernelSize: kernelSize, stride: stride, before: pad.left, after: pad.right)
        )
    }
}

/// The number of window positions along one axis: `(input + before + after - kernel) / stride + 1`.
@inlinable
public func convolutionOutputSize(inputSize: Int, kernelSize: Int, stride: Int, before: Int, after: Int) -> Int {
    let span = inputSize + before + after - kernelSize
    precondition(span >= 0 && stride > 0, "convolution: kernel \(kernelSize) larger than the padded input \(inputSize + before + after)")
    return span / stride + 1
}
