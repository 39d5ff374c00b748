// workbench-bench-finetune: milliseconds per image of one fine-tuning step's forward + backward passes through
// the trainable top of EfficientNet-Lite0, for scripts/bench/bench-finetune.sh.
//
// Usage: workbench-bench-finetune [--weights PATH] [--row last-block|last-three-stages|whole] [--threads T]
//                                 [--batch B] [--runs R] [--profile yes]
// The rows train block 15, blocks 8–15 (the last three stages) or everything from the stem, always with the
// head convolution and a fresh 5-class dense head (softmax cross-entropy, label smoothing 0.1). The frozen layers
// below run once, before timing, on random images to make the trainable part's input. Each run times one
// `TrainableClassifier.lossAndGradients` over B images split over T threads (BLAS single-threaded) and prints
// its milliseconds per image; the last line is the median. `--profile yes` prints the time of each layer group
// of one single-threaded step instead.
import BenchSupport
import Dispatch
import Foundation
import Models
import TensorCore
import TrainableLayers

let commandLine = BenchmarkCommandLine(
    program: "workbench-bench-finetune",
    defaults: [
        "--weights": "models/efficientnet-lite0.safetensors", "--row": "last-block",
        "--threads": "1", "--batch": "16", "--runs": "5", "--profile": "no",
    ])
let options = commandLine.options
func fail(_ message: String) -> Never { BenchmarkCommandLine.fail(program: "workbench-bench-finetune", message) }
let threads = commandLine.positive("--threads"), batch = commandLine.positive("--batch")
let runs = commandLine.positive("--runs")
let rows: [String: TrainableEfficientNetLite0.Start] = ["last-block": .block(15), "last-three-stages": .block(8), "whole": .stem]
guard let start = rows[options["--row"]!] else { fail("--row must be one of \(rows.keys.sorted().joined(separator: ", "))") }

let backbone: EfficientNetLite0
do {
    backbone = try EfficientNetLite0(weightsPath: options["--weights"]!)
} catch {
    fail("\(error)")
}
GEMM.setBLASThreads(1)

// Random images through the frozen bottom (the same layers in inference mode) make the trainable part's input.
// SplitMix64: cheap, seeded random inputs (the system generator's syscalls took seconds for 2.4 M values).
var generator = SplitMix64(seed: 1)
let side = EfficientNetLite0.inputSide, channels = EfficientNetLite0Architecture.inputChannels
let images = Tensor<Float>(
    shape: [batch, side, side, channels],
    storage: (0..<(batch * side * side * channels)).map { _ in
        Float.random(in: -1...1, using: &generator)
    })
let whole = TrainableEfficientNetLite0(backbone: backbone, trainableFrom: .stem)
var input = images
let model = TrainableClassifier(
    backbone: TrainableEfficientNetLite0(backbone: backbone, trainableFrom: start),
    classifier: DenseLayer(
        weights: Tensor(shape: [5, 1280], storage: (0..<6400).map { _ in Float.random(in: -0.01...0.01, using: &generator) }),
        bias: Tensor(shape: [5], repeating: 0)),
    labelSmoothing: 0.1)
if start != .stem {
    input = whole.stemScaleBias!.forward(whole.stem!.forward(images, mode: .inference).output, mode: .inference).output
    input = ReLU6Layer<Float>().forward(input, mode: .inference).output
    for block in whole.blocks.prefix(model.backbone.firstBlockIndex) { input = block.forward(input, mode: .inference).output }
}
let labels = (0..<batch).map { $0 % 5 }

func milliseconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }

if options["--profile"] == "yes" {
    profile(model, input: input, labels: labels, runs: runs)
    exit(0)
}

for _ in 0..<2 { _ = model.lossAndGradients(input, labels: labels, threads: threads) }  // warm-up
var times: [Double] = []
for run in 1...runs {
    let begin = DispatchTime.now().uptimeNanoseconds
    _ = model.lossAndGradients(input, labels: labels, threads: threads)
    times.append(milliseconds(since: begin) / Double(batch))
    print(String(format: "run %d: %.2f ms/image", run, times.last!))
}
let sorted = times.sorted()
let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
print(String(format: "median ms/image: %.2f row=%@ threads=%d batch=%d", median, options["--row"]!, threads, batch))
