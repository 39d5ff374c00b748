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
        forward(
            expand: expand, depthwise: depthwise, project: project, addsInput: addsInput, input: input, batch: batch,
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
        precondition(
            !addsInput || (outputHeight == height && outputWidth == width && inputChannels == project.outputChannels),
            "InvertedResidual: the residual needs matching shapes")

        guard kernel.usesVectorKernels else {
            var depthwiseInput = input
            if let expand {
                expand.forward(input: input, pixelCount: batch * height * width, output: expanded, residual: nil, kernel: kernel)
                depthwiseInput = UnsafePointer(expanded)
            }
            depthwise.forward(input: depthwiseInput, batch: batch, height: height, width: width, output: spatial, kernel: kernel)
            project.forward(
                input: spatial, pixelCount: batch * outputHeight * outputWidth, output: output,
                residual: addsInput ? input : nil, kernel: kernel)
            return
        }

        for n in 0..<batch {
            let image = input + n * height * width * inputChannels
            let produce: ((Int, Int, UnsafeMutablePointer<Float>) -> Void)? = expand.map { expand in
                { first, end, destination in
                    expand.forward(
                        input: image + first * width * inputChannels, pixelCount: (end - first) * width,
                        output: destination, residual: nil, kernel: kernel, prefetching: project)
                }
            }
            bands(
                depthwise: depthwise, project: project, height: height, width: width, rows: image, produce: produce,
                residual: addsInput ? image : nil, output: output + n * outputHeight * outputWidth * project.outputChannels,
                expanded: expanded, spatial: spatial, kernel: kernel, bandBudgetBytes: bandBudgetBytes,
                between: expand, next: n == batch - 1 ? next : expand)
        }
    }

    /// The stem and a block without expansion (EfficientNet-Lite0's block 0) as one pass: the stem's output rows
    /// are computed band by band where an expand layer's would be, so its 1.6 MB output never leaves L2.
    ///
    /// Shapes: input `[batch, imageHeight, imageWidth, stem.inputChannels]` → output `[batch, outHeight,
    /// outWidth, project.outputChannels]`, where the block's input is the stem's output. `expanded` holds at least
    /// one image's stem output and `spatial` one image's depthwise output. No residual (block 0 has none).
    public static func forward(
        stem: Convolution2D, depthwise: DepthwiseConvolution2D, project: PointwiseConvolution,
        input: UnsafePointer<Float>, batch: Int, imageHeight: Int, imageWidth: Int, output: UnsafeMutablePointer<Float>,
        expanded: UnsafeMutablePointer<Float>, spatial: UnsafeMutablePointer<Float>, kernel: KernelChoice = .automatic,
        next: PointwiseConvolution? = nil
    ) {
        forward(
            stem: stem, depthwise: depthwise, project: project, input: input, batch: batch, imageHeight: imageHeight,
            imageWidth: imageWidth, output: output, expanded: expanded, spatial: spatial, kernel: kernel,
            bandBudgetBytes: bandBudgetBytes, next: next)
    }

    /// The stem variant with the band size as a parameter, for tests.
    static func forward(
        stem: Convolution2D, depthwise: DepthwiseConvolution2D, project: PointwiseConvolution,
        input: UnsafePointer<Float>, batch: Int, imageHeight: Int, imageWidth: Int, output: UnsafeMutablePointer<Float>,
        expanded: UnsafeMutablePointer<Float>, spatial: UnsafeMutablePointer<Float>, kernel: KernelChoice,
        bandBudgetBytes: Int, next: PointwiseConvolution?
    ) {
        precondition(
            stem.outputChannels == depthwise.channels && project.inputChannels == depthwise.channels,
            "InvertedResidual: stem/depthwise/project channels")
        let (height, width) = stem.outputSize(inputHeight: imageHeight, inputWidth: imageWidth)
        let (outputHeight, outputWidth) = depthwise.outputSize(inputHeight: height, inputWidth: width)
        let imageFloats = imageHeight * imageWidth * stem.inputChannels
        let outputFloats = outputHeight * outputWidth * project.outputChannels
        for n in 0..<batch {
            let image = input + n * imageFloats
            guard kernel.usesVectorKernels else {
                stem.forward(input: image, batch: 1, height: imageHeight, width: imageWidth, output: expanded, kernel: kernel)
                depthwise.forward(input: expanded, batch: 1, height: height, width: width, output: spatial, kernel: kernel)
                project.forward(
                    input: spatial, pixelCount: outputHeight * outputWidth, output: output + n * outputFloats,
                    residual: nil, kernel: kernel)
                continue
            }
            bands(
                depthwise: depthwise, project: project, height: height, width: width, rows: nil,
                produce: { first, end, destination in
                    stem.forwardRows(
                        input: image, height: imageHeight, width: imageWidth, outputRows: first..<end,
                        output: destination, level: kernel.level)
                },
                residual: nil, output: output + n * outputFloats, expanded: expanded, spatial: spatial,
                kernel: kernel, bandBudgetBytes: bandBudgetBytes, between: nil, next: next)
        }
    }

    /// One image in bands of output rows. The depthwise input rows come from `produce` (rows `[first, end)` of
    /// the block input, written to a destination; shared rows are kept between bands) or, without it, straight
    /// from `rows` (`[height, width, channels]`). `residual` is added to the output (same shape) when given.
    /// The project layer prefetches `between` (the layer the next band starts with) or, after the last band, `next`.
    private static func bands(
        depthwise: DepthwiseConvolution2D, project: PointwiseConvolution, height: Int, width: Int,
        rows: UnsafePointer<Float>?, produce: ((Int, Int, UnsafeMutablePointer<Float>) -> Void)?,
        residual: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>,
        expanded: UnsafeMutablePointer<Float>, spatial: UnsafeMutablePointer<Float>, kernel: KernelChoice,
        bandBudgetBytes: Int, between: PointwiseConvolution?, next: PointwiseConvolution?
    ) {
        let channels = depthwise.channels
        let (outputHeight, outputWidth) = depthwise.outputSize(inputHeight: height, inputWidth: width)
        let k = depthwise.kernelSize, s = depthwise.stride
        let top = depthwise.padding.resolve(inputHeight: height, inputWidth: width, kernelSize: k, stride: s).top
        let rowFloats = width * channels
        let budgetRows = bandBudgetBytes / (rowFloats * MemoryLayout<Float>.size)
        var bandRows = max(1, (budgetRows - max(k - s, 0)) / s)
        if height * rowFloats * MemoryLayout<Float>.size <= singleBandBytes && bandBudgetBytes >= Self.bandBudgetBytes {
            bandRows = outputHeight
        }
        // Produced rows [haveFirst, haveEnd) sit at the start of `expanded`.
        var haveFirst = 0, haveEnd = 0
        for firstOutputRow in stride(from: 0, to: outputHeight, by: bandRows) {
            let endOutputRow = min(outputHeight, firstOutputRow + bandRows)
            // Input rows read by the band's windows, clipped to the image.
            let firstRow = min(height, max(0, firstOutputRow * s - top))
            let endRow = max(firstRow, min(height, (endOutputRow - 1) * s - top + k))
            let depthwiseInput: UnsafePointer<Float>
            if let produce {
                let keptEnd = min(haveEnd, endRow)
                var computeFrom = firstRow
                if keptEnd > firstRow && firstRow >= haveFirst {
                    // Rows shared with the previous band move to the front instead of being computed again.
                    memmove(
                        expanded, expanded + (firstRow - haveFirst) * rowFloats,
                        (keptEnd - firstRow) * rowFloats * MemoryLayout<Float>.size)
                    computeFrom = keptEnd
                }
                if endRow > computeFrom { produce(computeFrom, endRow, expanded + (computeFrom - firstRow) * rowFloats) }
                (haveFirst, haveEnd) = (firstRow, endRow)
                depthwiseInput = UnsafePointer(expanded)
            } else {
                depthwiseInput = rows! + firstRow * rowFloats
            }
            depthwise.forwardRows(
                input: depthwiseInput, height: height, width: width,
                outputRows: firstOutputRow..<endOutputRow, inputFirstRow: firstRow,
                output: spatial, level: kernel.level)
            let pixelOffset = firstOutputRow * outputWidth * project.outputChannels
            project.forward(
                input: spatial, pixelCount: (endOutputRow - firstOutputRow) * outputWidth,
                output: output + pixelOffset, residual: residual.map { $0 + pixelOffset },
                kernel: kernel, prefetching: endOutputRow == outputHeight ? next : between)
        }
    }
}
