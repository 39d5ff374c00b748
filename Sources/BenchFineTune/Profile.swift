import Dispatch
import Foundation
import TrainableLayers

/// Prints the median milliseconds per image of each layer group's forward and backward passes in one
/// single-threaded training step (the same calls `TrainableEfficientNetLite0` makes, timed one by one).
func profile(_ model: TrainableClassifier, input: Tensor<Float>, labels: [Int], runs: Int) {
    let network = model.backbone
    var timings: [String: [Double]] = [:]
    var order: [String] = []
    func time<Result>(_ name: String, _ body: () -> Result) -> Result {
        let begin = DispatchTime.now().uptimeNanoseconds
        let result = body()
        if timings[name] == nil { order.append(name) }
        timings[name, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6 / Double(labels.count))
        return result
    }
    for _ in 0..<(runs + 1) {
        var current = input
        var stemCache: (ConvolutionLayer<Float>.Cache, Tensor<Float>, Tensor<Float>)?
        if let stem = network.stem, let scaleBias = network.stemScaleBias {
            let convolution = time("stem forward") { stem.forward(current, mode: .training) }
            current = time("stem forward") {
                ReLU6Layer<Float>().forward(scaleBias.forward(convolution.output, mode: .inference).output, mode: .inference).output
            }
            stemCache = (convolution.cache!, convolution.output, current)
        }
        var caches: [InvertedResidualBlock<Float>.Cache] = []
        for block in network.blocks {
            let step = time("block \(block.specification.index) forward") { block.forward(current, mode: .training) }
            caches.append(step.cache!)
            current = step.output
        }
        let headStep = time("head forward") { network.head.forward(current, mode: .training) }
        let activated = time("head forward") {
            ReLU6Layer<Float>().forward(network.headScaleBias.forward(headStep.output, mode: .inference).output, mode: .inference).output
        }
        let pooled = time("pool + classifier + loss") { GlobalAveragePoolingLayer<Float>().forward(activated, mode: .training) }
        let logits = time("pool + classifier + loss") { model.classifier.forward(pooled.output, mode: .training) }
        let loss = time("pool + classifier + loss") {
            SoftmaxCrossEntropy.lossAndGradient(logits: logits.output, labels: labels, labelSmoothing: model.labelSmoothing,
                                                normalizer: labels.count)
        }
        let featureGradient = time("pool + classifier + loss") { model.classifier.backward(loss.logitGradient, cache: logits.cache!).input! }
        var gradient = time("head backward") {
            let pooledGradient = GlobalAveragePoolingLayer<Float>().backward(featureGradient, cache: pooled.cache!)
            let masked = ReLU6Layer<Float>().backward(pooledGradient, cache: .init(output: activated))
            let scaled = network.headScaleBias.backward(masked, cache: .init(input: headStep.output)).input!
            return network.head.backward(scaled, cache: headStep.cache!).input!
        }
        for (index, block) in network.blocks.enumerated().reversed() {
            gradient = time("block \(block.specification.index) backward") {
                block.backward(gradient, cache: caches[index], computesInputGradient: index > 0 || stemCache != nil).input
            } ?? gradient
        }
        if let stem = network.stem, let scaleBias = network.stemScaleBias, let (cache, output, activatedStem) = stemCache {
            time("stem backward") {
                let masked = ReLU6Layer<Float>().backward(gradient, cache: .init(output: activatedStem))
                let scaled = scaleBias.backward(masked, cache: .init(input: output)).input!
                _ = stem.backward(scaled, cache: cache, computesInputGradient: false)
            }
        }
    }
    var total = 0.0
    for name in order {
        let values = timings[name]!.dropFirst().sorted()  // the first step warms up
        let median = values[values.count / 2]
        total += median
        print(name.padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%7.3f ms/image", median))
    }
    print("total".padding(toLength: 28, withPad: " ", startingAt: 0) + String(format: "%7.3f ms/image", total))
}
