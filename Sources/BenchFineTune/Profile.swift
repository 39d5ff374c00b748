import Foundation
import TensorCore
import TrainableLayers

/// Prints the median milliseconds per image of each block's forward and backward passes in a single-threaded
/// training step, and of the rest of the step (stem, head, pooling, classifier and loss), in this thread's CPU
/// time: on a machine shared with other jobs that is steadier than the wall clock.
func profile(_ model: TrainableClassifier, input: Tensor<Float>, labels: [Int], runs: Int) {
    let network = model.backbone
    var timings: [String: [Double]] = [:]
    var order: [String] = []
    func time<Result>(_ name: String, _ body: () -> Result) -> Result {
        let begin = threadCPUNanoseconds()
        let result = body()
        if timings[name] == nil { order.append(name) }
        timings[name, default: []].append(Double(threadCPUNanoseconds() - begin) / 1e6 / Double(labels.count))
        return result
    }
    // Each block's input, from one forward pass of the whole step.
    var blockInputs: [Tensor<Float>] = []
    if let first = network.blocks.first {
        var current = input
        if network.stem != nil {
            // The stem's output is block 0's input: the whole network's forward pass up to it, by hand.
            let stemOutput = network.stemScaleBias!.forward(network.stem!.forward(input, mode: .inference).output, mode: .inference).output
            current = ReLU6Layer<Float>().forward(stemOutput, mode: .inference).output
        }
        precondition(current.shape.last == first.specification.inputChannels)
        for block in network.blocks {
            blockInputs.append(current)
            current = block.forward(current, mode: .inference).output
        }
    }
    var generator = SplitMix64(seed: 2)
    for _ in 0..<(runs + 1) {
        let whole = time("whole step") { model.lossAndGradients(input, labels: labels) }
        _ = whole
        for (index, block) in network.blocks.enumerated() {
            let step = time("block \(block.specification.index) forward") { block.forward(blockInputs[index], mode: .training) }
            let gradient = Tensor<Float>(
                shape: step.output.shape,
                storage: (0..<step.output.count).map { _ in
                    Float.random(in: -1e-3...1e-3, using: &generator)
                })
            _ = time("block \(block.specification.index) backward") {
                block.backward(gradient, cache: step.cache!, computesInputGradient: index > 0 || network.stem != nil)
            }
        }
    }
    var blocksTotal = 0.0, whole = 0.0
    for name in order {
        let values = timings[name]!.dropFirst().sorted()  // the first step warms up
        let median = values[values.count / 2]
        if name == "whole step" { whole = median } else { blocksTotal += median }
        print(name.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%7.3f ms/image", median))
    }
    print("rest of the step".padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%7.3f ms/image", whole - blocksTotal))
}

/// CPU time this thread has used.
func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
