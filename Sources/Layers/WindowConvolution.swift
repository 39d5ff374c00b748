import TensorCore

/// A convolution with a square window sliding over NHWC images (`Convolution2D`, `DepthwiseConvolution2D`):
/// each keeps its own kernels; this is what the two share around them, the output size and the array form of
/// the forward pass.
public protocol WindowConvolution: Sendable {
    /// Channels of the input tensor.
    var inputChannels: Int { get }
    /// Channels of the output tensor.
    var outputChannels: Int { get }
    /// Side of the square kernel.
    var kernelSize: Int { get }
    /// Step between windows, the same on both axes.
    var stride: Int { get }
    /// How the input is padded.
    var padding: PaddingRule { get }

    /// input `[batch, height, width, inputChannels]` → output `[batch, outHeight, outWidth, outputChannels]`;
    /// no overlap.
    func forward(
        input: UnsafePointer<Float>, batch: Int, height: Int, width: Int, output: UnsafeMutablePointer<Float>,
        kernel: KernelChoice)
}

extension WindowConvolution {
    /// Output height and width for an input of the given size.
    public func outputSize(inputHeight: Int, inputWidth: Int) -> (height: Int, width: Int) {
        padding.outputSize(inputHeight: inputHeight, inputWidth: inputWidth, kernelSize: kernelSize, stride: stride)
    }

    /// input `[batch, height, width, inputChannels]` → output `[batch, outHeight, outWidth, outputChannels]`.
    public func forward(_ input: [Float], batch: Int, height: Int, width: Int, kernel: KernelChoice = .automatic) -> [Float] {
        precondition(input.count == batch * height * width * inputChannels, "\(Self.self): input count")
        let size = outputSize(inputHeight: height, inputWidth: width)
        var output = [Float](repeating: 0, count: batch * size.height * size.width * outputChannels)
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                forward(
                    input: source.baseAddress!, batch: batch, height: height, width: width, output: destination.baseAddress!,
                    kernel: kernel)
            }
        }
        return output
    }
}
