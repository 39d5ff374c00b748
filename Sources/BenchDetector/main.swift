// workbench-bench-detector: frames per second of the person detector (ObjectDetector.detect: the graph's
// preprocessing, the network, decoding and suppression) on decoded frames.
//
// Usage: workbench-bench-detector --frames FOLDER [--detector PATH] [--threads T] [--runs R] [--profile yes]
// Each run detects people on every picture of FOLDER (decoded once, before timing), T pictures at a time, and prints
// its frames/s; the last line is the median. `--profile yes` prints instead the milliseconds per frame of the
// three steps on one thread: preprocessing, the network, and the whole of detect.
import BenchSupport
import Detection
import Dispatch
import Foundation
import ImageCodecs

let commandLine = BenchmarkCommandLine(
    program: "workbench-bench-detector",
    defaults: [
        "--detector": "models/ssdlite-mobilenetv2-person.safetensors", "--frames": "", "--threads": "1", "--runs": "5",
        "--profile": "no",
    ])
let options = commandLine.options
let threads = commandLine.positive("--threads"), runs = commandLine.positive("--runs")

let detector: ObjectDetector
do {
    detector = try ObjectDetector.load(path: options["--detector"]!, threads: threads)
} catch {
    commandLine.fail("\(error)")
}
let folder = options["--frames"]!
let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
    .filter { $0.hasSuffix(".png") || $0.hasSuffix(".jpg") }.sorted()
if names.isEmpty { commandLine.fail("--frames \(folder): no .png or .jpg pictures") }
var frames: [RGBImage] = []
for name in names {
    do {
        frames.append(try ImageLoader.load(path: folder + "/" + name))
    } catch {
        commandLine.fail("\(error)")
    }
}
_ = detector.detect(in: Array(frames.prefix(threads)))  // warm-up: page in weights and workspaces

if options["--profile"] == "yes" {
    func milliseconds(_ body: (RGBImage) -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            for frame in frames { body(frame) }
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(frames.count))
        }
        return best
    }
    let side = detector.inputSide
    var input = [Float](repeating: 0, count: side * side * 3)
    var boxes = [Float](repeating: 0, count: 1917 * 4), logits = [Float](repeating: 0, count: 1917 * 2)
    let preprocessing = milliseconds { frame in
        input.withUnsafeMutableBufferPointer { DetectorPreprocessing.prepare(frame, side: side, into: $0.baseAddress!) }
    }
    let network = milliseconds { _ in
        input.withUnsafeBufferPointer { input in
            boxes.withUnsafeMutableBufferPointer { boxes in
                logits.withUnsafeMutableBufferPointer { logits in
                    detector.network.forward(input: input.baseAddress!, boxEncodings: boxes.baseAddress!, classLogits: logits.baseAddress!)
                }
            }
        }
    }
    let whole = milliseconds { frame in _ = detector.detect(in: frame) }
    print(String(format: "preprocessing %.3f ms, network %.3f ms, detect %.3f ms per frame (best of %d)", preprocessing, network, whole, runs))
    exit(0)
}

var rates: [Double] = []
var people = 0
for run in 1...runs {
    let start = DispatchTime.now().uptimeNanoseconds
    let found = detector.detect(in: frames)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    people = found.reduce(0) { $0 + $1.count }
    let rate = Double(frames.count) / seconds
    rates.append(rate)
    print(String(format: "run %d: %.2f frames/s", run, rate))
}
print(String(format: "median frames/s: %.2f (%d frames, %d people at 0.5)", rates.sorted()[rates.count / 2], frames.count, people))
