import Dispatch
import Layers
import Models

/// Milliseconds per image in the stem with block 0, each other block (run as `features` runs them) and the head,
/// through preallocated buffers. Medians over `runs`.
func profileLayers(_ network: EfficientNetLite0, image: [Float], runs: Int) -> [(String, Double)] {
    let capacity = 112 * 112 * 96  // the largest tensor: block 1's expanded input
    let buffers = (0..<4).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: capacity) }
    defer { buffers.forEach { $0.deallocate() } }
    var samples: [[Double]] = []
    var names: [String] = []
    for run in 0..<runs {
        var times: [Double] = []
        var clock = DispatchTime.now().uptimeNanoseconds
        func lap(_ name: String) {
            let now = DispatchTime.now().uptimeNanoseconds
            times.append(Double(now - clock) / 1e6)
            if run == 0 { names.append(name) }
            clock = now
        }
        let side = EfficientNetLite0.inputSide
        var (current, next) = (buffers[0], buffers[1])
        var (height, width) = network.stem.outputSize(inputHeight: side, inputWidth: side)
        // The stem runs inside block 0, as `features` runs it.
        let first = network.blocks[0]
        image.withUnsafeBufferPointer { image in
            InvertedResidual.forward(
                stem: network.stem, depthwise: first.depthwise, project: first.project,
                input: image.baseAddress!, batch: 1, imageHeight: side, imageWidth: side, output: next,
                expanded: buffers[2], spatial: buffers[3])
        }
        lap("stem + block 0 \(height)² 3→32→16")
        (height, width) = first.outputSize(inputHeight: height, inputWidth: width)
        swap(&current, &next)
        for block in network.blocks.dropFirst() {
            InvertedResidual.forward(
                expand: block.expand, depthwise: block.depthwise, project: block.project,
                addsInput: block.specification.hasResidual, input: current, batch: 1,
                height: height, width: width, output: next, expanded: buffers[2], spatial: buffers[3])
            let spec = block.specification
            lap(
                "block \(spec.index) \(height)² \(spec.inputChannels)→\(spec.expandedChannels)→\(spec.outputChannels) k\(spec.kernelSize)s\(spec.stride)"
            )
            (height, width) = block.outputSize(inputHeight: height, inputWidth: width)
            swap(&current, &next)
        }
        network.head.forward(input: current, pixelCount: height * width, output: buffers[2], residual: nil)
        lap("head")
        samples.append(times)
    }
    return names.indices.map { index in
        let sorted = samples.map { $0[index] }.sorted()
        return (names[index], sorted[sorted.count / 2])
    }
}
