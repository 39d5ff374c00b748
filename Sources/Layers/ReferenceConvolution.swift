/// The naive direct-loop convolution every fast convolution kernel is tested against. Slow and obvious on
/// purpose: one output value at a time, double-precision sums, explicit bounds checks for the padding.
public enum ReferenceConvolution {
    /// A grouped 2-D convolution with a square kernel, then `activation(sum + bias) + residual`.
    ///
    /// Shapes: input `[batch, height, width, inputChannels]` (NHWC); weights OIHW `[outputChannels,
    /// inputChannels / groups, kernelSize, kernelSize]`; bias `[outputChannels]` or nil for none; residual and
    /// output `[batch, outHeight, outWidth, outputChannels]`. `groups` = 1 is a dense convolution, `groups` =
    /// inputChannels = outputChannels a depthwise one. Output size per axis: `(in + before + after − k) / stride + 1`.
    public static func direct(
        input: [Float], batch: Int, height: Int, width: Int, inputChannels: Int,
        weightsOIHW: [Float], outputChannels: Int, kernelSize: Int, groups: Int = 1,
        stride: Int, padding: Padding2D,
        bias: [Float]? = nil, activation: Activation = .none, residual: [Float]? = nil
    ) -> [Float] {
        precondition(inputChannels % groups == 0 && outputChannels % groups == 0, "ReferenceConvolution: groups must divide channels")
        let groupInputs = inputChannels / groups
        let groupOutputs = outputChannels / groups
        precondition(input.count == batch * height * width * inputChannels, "ReferenceConvolution: input count")
        precondition(weightsOIHW.count == outputChannels * groupInputs * kernelSize * kernelSize, "ReferenceConvolution: weights count")
        let outputHeight = convolutionOutputSize(
            inputSize: height, kernelSize: kernelSize, stride: stride, before: padding.top, after: padding.bottom)
        let outputWidth = convolutionOutputSize(inputSize: width, kernelSize: kernelSize, stride: stride, before: padding.left, after: padding.right)
        let count = batch * outputHeight * outputWidth * outputChannels
        precondition(residual == nil || residual!.count == count, "ReferenceConvolution: residual count")
        var output = [Float](repeating: 0, count: count)
        for n in 0..<batch {
            for oy in 0..<outputHeight {
                for ox in 0..<outputWidth {
                    for o in 0..<outputChannels {
                        let group = o / groupOutputs
                        var sum = Double(bias?[o] ?? 0)
                        for ky in 0..<kernelSize {
                            for kx in 0..<kernelSize {
                                let iy = oy * stride - padding.top + ky
                                let ix = ox * stride - padding.left + kx
                                guard iy >= 0, iy < height, ix >= 0, ix < width else { continue }
                                for i in 0..<groupInputs {
                                    let inputChannel = group * groupInputs + i
                                    let value = input[((n * height + iy) * width + ix) * inputChannels + inputChannel]
                                    let weight = weightsOIHW[((o * groupInputs + i) * kernelSize + ky) * kernelSize + kx]
                                    sum += Double(value) * Double(weight)
                                }
                            }
                        }
                        let index = ((n * outputHeight + oy) * outputWidth + ox) * outputChannels + o
                        output[index] = activation.apply(Float(sum)) + (residual?[index] ?? 0)
                    }
                }
            }
        }
        return output
    }
}
