import Dispatch
import Layers
import Models

/// Milliseconds per image spent in each kind of layer: the public folded layers run one at a time on one image
/// through preallocated buffers, as `features` runs them. Medians over `runs`.
func profileLayers(_ network: EfficientNetLite0, image: [Float], runs: Int) -> [(String, Double)] {
    let capacity = 112 * 112 * 96  // the largest tensor: block 1's expanded input
    let buffers = (0..<4).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: capacity) }
    defer { buffers.forEach { $0.deallocate() } }
    var samples: [String: [Double]] = [:]
    func timed(_ name: String, _ totals: inout [String: Double], _ body: () -> Void) {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        totals[name, default: 0] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }
    for _ in 0..<runs {
        var totals: [String: Double] = [:]
        let side = EfficientNetLite0.inputSide
        var (current, next, expanded, spatial) = (buffers[0], buffers[1], buffers[2], buffers[3])
        image.withUnsafeBufferPointer { image in
            timed("stem", &totals) { network.stem.forward(input: image.baseAddress!, batch: 1, height: side, width: side, output: current) }
        }
        var (height, width) = network.stem.outputSize(inputHeight: side, inputWidth: side)
        for block in network.blocks {
            var depthwiseInput = current
            if let expand = block.expand {
                timed("expand 1×1", &totals) { expand.forward(input: current, pixelCount: height * width, output: expanded, residual: nil) }
                depthwiseInput = expanded
            }
            timed("depthwise k×k", &totals) { block.depthwise.forward(input: depthwiseInput, batch: 1, height: height, width: width, output: spatial) }
            (height, width) = block.outputSize(inputHeight: height, inputWidth: width)
            timed("project 1×1", &totals) {
                block.project.forward(input: spatial, pixelCount: height * width, output: next,
                                      residual: block.specification.hasResidual ? current : nil)
            }
            swap(&current, &next)
        }
        timed("head 1×1", &totals) { network.head.forward(input: current, pixelCount: height * width, output: expanded, residual: nil) }
        for (name, value) in totals { samples[name, default: []].append(value) }
    }
    let order = ["stem", "expand 1×1", "depthwise k×k", "project 1×1", "head 1×1"]
    return order.map { name in
        let sorted = samples[name]!.sorted()
        return (name, sorted[sorted.count / 2])
    }
}
