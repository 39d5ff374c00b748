import Foundation

/// An inverted-residual block's three convolutions run together: `[1×1 expand] → k×k depthwise → 1×1 project
/// (+ input)`, with batch norm folded into each.
///
/// Layout: NHWC. input `[batch, height, width, inputChannels]` → output `[batch, outHeight, outWidth,
/// outputChannels]`. With the vector kernels the image goes in bands of output rows: each band expands only the
/// input rows its windows read (keeping the rows the next band shares), convolves them and projects the result
/// at once, so the 6× expanded tensor and the depthwise output stay in L2 instead of making three trips through
/// memory. The portable path runs the three layers one after another over whole tensors.
public enum InvertedResidual {
    /// Bytes of expanded rows one band may hold: with the band's depthwise output and the layers' weights, this
    /// stays inside a 1 MB L2. An image whose whole expanded tensor is below `singleBandBytes` goes in one band:
    /// there the weights (up to 0.9 MB per 1×1 layer on the 7×7 blocks) outweigh the activations, and every
    /// extra band would stream them through the cache again.
    static let bandBudgetBytes = 256 * 1024
    static let singleBandBytes = 1024 * 1024

    /// Runs the block. `expanded` and `spatial` are scratch of at least `height·width·expandedChannels` and
    /// `outHeight·outWidth·expandedChannels` floats; `output` overlaps neither them nor `input`. `addsInput`
    /// adds the input to the output (only valid when the shapes match). `next`, when given, is the 1×1 layer
    /// that runs after the block: the project layer starts pulling its weights into cache.
    public static func forward(
        expand: PointwiseConvolution?, depthwise: DepthwiseConvolution2D, project: PointwiseConvolution, addsInput: Bool,
        input: UnsafePointer<Float>, batch: Int, height: Int, width: Int, output: UnsafeMutablePointer<Float>,
        expanded: UnsafeMutablePointer<Float>, spatial: UnsafeMutablePointer<Float>, kernel: KernelChoice = .automatic,
        next: PointwiseConvolution? = nil
    ) {
        forward(expand: expand, depthwise: depthwise, project: project, addsInput: addsInput, input: input, batch: batch,
                height: height, width: width, output: output, expanded: expanded, spatial: spatial, kernel: kernel,
                bandBudgetBytes: bandBudgetBytes, next: next)
    }

    /// `forward` with the band size as a parameter, so tests can force many bands on small images.
    static func forward(
        expand: PointwiseConvolution?, depthwise: DepthwiseConvolution2D, project: PointwiseConvolution, addsInput: Bool,
        input: UnsafePointer<Float>, batch: Int, height: Int, width: Int, output: UnsafeMutablePointer<Float>,
        expanded: UnsafeMutablePointer<Float>, spatial: UnsafeMutablePointer<Float>, kernel: KernelChoice,
        bandBudgetBytes: Int, next: PointwiseConvolution? = nil
    ) {
        let channels = depthwise.channels
        let inputChannels = expand?.inputChannels ?? channels
        precondition(expand == nil || expand!.outputChannels == channels, "InvertedResidual: expand/depthwise channels")
        precondition(project.inputChannels == channels, "InvertedResidual: depthwise/project channels")
        let (outputHeight, outputWidth) = depthwise.outputSize(inputHeight: height, inputWidth: width)
        precondition(!addsInput || (outputHeight == height && outputWidth == width && inputChannels == project.outputChannels),
                     "InvertedResidual: the residual needs matching shapes")

        guard kernel.usesVectorKernels else {
            var depthwiseInput = input
            if let expand {
                expand.forward(input: input, pixelCount: batch * height * width, output: expanded, residual: nil, kernel: kernel)
                depthwiseInput = UnsafePointer(expanded)
            }
            depthwise.forward(input: depthwiseInput, batch: batch, height: height, width: width, output: spatial, kernel: kernel)
            project.forward(input: spatial, pixelCount: batch * outputHeight * outputWidth, output: output,
                            residual: addsInput ? input : nil, kernel: kernel)
            return
        }

        let k = depthwise.kernelSize, s = depthwise.stride
        let top = depthwise.padding.resolve(inputHeight: height, inputWidth: width, kernelSize: k, stride: s).top
        let rowFloats = width * channels
        let budgetRows = bandBudgetBytes / (rowFloats * MemoryLayout<Float>.size)
        var bandRows = max(1, (budgetRows - max(k - s, 0)) / s)
        if height * rowFloats * MemoryLayout<Float>.size <= singleBandBytes && bandBudgetBytes >= Self.bandBudgetBytes {
            bandRows = outputHeight
        }
        for n in 0..<batch {
            let image = input + n * height * width * inputChannels
            let imageOutput = output + n * outputHeight * outputWidth * project.outputChannels
            // Expanded rows [haveFirst, haveEnd) sit at the start of `expanded`.
            var haveFirst = 0, haveEnd = 0
            for firstOutputRow in stride(from: 0, to: outputHeight, by: bandRows) {
                let endOutputRow = min(outputHeight, firstOutputRow + bandRows)
                // Input rows read by the band's windows, clipped to the image.
                let firstRow = min(height, max(0, firstOutputRow * s - top))
                let endRow = max(firstRow, min(height, (endOutputRow - 1) * s - top + k))
                var depthwiseInput = image + firstRow * rowFloats
                if let expand {
                    let keptEnd = min(haveEnd, endRow)
                    var computeFrom = firstRow
                    if keptEnd > firstRow && firstRow >= haveFirst {
                        // Rows shared with the previous band move to the front instead of being expanded again.
                        memmove(expanded, expanded + (firstRow - haveFirst) * rowFloats,
                                (keptEnd - firstRow) * rowFloats * MemoryLayout<Float>.size)
                        computeFrom = keptEnd
                    }
                    if endRow > computeFrom {
                        expand.forward(input: image + computeFrom * width * inputChannels, pixelCount: (endRow - computeFrom) * width,
                                       output: expanded + (computeFrom - firstRow) * rowFloats, residual: nil, kernel: kernel,
                                       prefetching: project)
                    }
                    (haveFirst, haveEnd) = (firstRow, endRow)
                    depthwiseInput = UnsafePointer(expanded)
                }
                depthwise.forwardRows(input: depthwiseInput, height: height, width: width,
                                      outputRows: firstOutputRow..<endOutputRow, inputFirstRow: firstRow,
                                      output: spatial, level: kernel.level)
                let pixelOffset = firstOutputRow * outputWidth * project.outputChannels
                // The last band hands over to the next layer; earlier ones to this block's expand (next band).
                let isLast = endOutputRow == outputHeight && n == batch - 1
                project.forward(input: spatial, pixelCount: (endOutputRow - firstOutputRow) * outputWidth,
                                output: imageOutput + pixelOffset, residual: addsInput ? image + pixelOffset : nil, kernel: kernel,
                                prefetching: isLast ? next : expand)
            }
        }
    }
}
