// workbench-bench-network: images per second of EfficientNetLite0.features on decoded 224×224 inputs.
//
// Usage: workbench-bench-network [--weights PATH] [--input IMAGE] [--threads T] [--batch B] [--images N] [--runs R]
//                                [--profile yes]
// Each run pushes N images through the network on T threads (each thread runs whole batches of B images with
// BLAS single-threaded, as Workbench's feature extraction does) and prints its images/s; the last line is the
// median. The input is an image (default: the golden 224×224 test fixture), preprocessed as Workbench does.
import BenchSupport
import Dispatch
import Foundation
import ImageCodecs
import Models
import TensorCore

let commandLine = BenchmarkCommandLine(
    program: "workbench-bench-network",
    defaults: [
        "--weights": "models/efficientnet-lite0.safetensors",
        "--input": "Tests/ModelsTests/Fixtures/coffee_224.png",
        "--threads": "1", "--batch": "1", "--images": "64", "--runs": "5", "--profile": "no",
    ])
let options = commandLine.options
func fail(_ message: String) -> Never { BenchmarkCommandLine.fail(program: "workbench-bench-network", message) }
let threads = commandLine.positive("--threads"), batch = commandLine.positive("--batch")
let images = commandLine.positive("--images"), runs = commandLine.positive("--runs")

let network: EfficientNetLite0
do {
    network = try EfficientNetLite0(weightsPath: options["--weights"]!)
} catch {
    fail("\(error)")
}
let image: [Float]
do {
    image = ImagePreprocessing.efficientNetLite0.networkInput(from: try ImageLoader.load(path: options["--input"]!))
} catch {
    fail("\(error)")
}
let input = Array((0..<batch).map { _ in image }.joined())
GEMM.setBLASThreads(1)

// Batches per run, split evenly over the threads.
let batchesPerThread = max(1, (images + batch * threads - 1) / (batch * threads))
let imagesPerRun = batchesPerThread * batch * threads
_ = network.features(input, batch: batch)  // warm-up: page in weights and workspace

if options["--profile"] == "yes" {
    for (name, milliseconds) in profileLayers(network, image: image, runs: runs) {
        print(name.padding(toLength: 36, withPad: " ", startingAt: 0) + String(format: "%6.3f ms/image", milliseconds))
    }
    exit(0)
}

var rates: [Double] = []
for run in 1...runs {
    let start = DispatchTime.now().uptimeNanoseconds
    Parallel.forEach(threads, threads: threads) { _ in
        for _ in 0..<batchesPerThread { _ = network.features(input, batch: batch) }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let rate = Double(imagesPerRun) / seconds
    rates.append(rate)
    print(String(format: "run %d: %.1f images/s (%.2f ms/image per thread)", run, rate, 1000 * Double(threads) / rate))
}
let sorted = rates.sorted()
let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
print(String(format: "median images/s: %.1f threads=%d batch=%d", median, threads, batch))
