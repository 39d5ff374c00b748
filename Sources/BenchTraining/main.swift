// workbench-bench-training: seconds to choose the L2 strength and fit the head on synthetic features.
//
// Usage: workbench-bench-training [--count N] [--classes C] [--threads T] [--runs R] [--tolerance TOL]
//                                 [--features FILE.jsonl]
// With --features, the vectors come from `workbench features --json` output instead (each image's label is the name
// of its folder), e.g. a real dataset's training images.
// Each run builds N feature vectors of 1280 dimensions shaped like pooled CNN features (non-negative, a shared
// low-rank part, a class-specific mean shift), then does what `workbench train` does with them: the default plan
// (`HeldOutPlan.automatic`: repeated 5-fold cross-validation up to 2,000 images, one 20 % held-out split above)
// over the default grid, the temperature fit, and the final fit on all N. It prints one line per run and the
// median last. BLAS runs single-threaded, as after feature extraction; folds spread over T threads.
import BenchSupport
import Foundation
import TensorCore
import LogisticHead

let commandLine = BenchmarkCommandLine(
    program: "workbench-bench-training",
    defaults: [
        "--count": "1000", "--classes": "10", "--threads": "\(Parallel.coreCount)", "--runs": "3",
        "--tolerance": "1e-6", "--features": "", "--trace": "no",
    ])
let options = commandLine.options
func fail(_ message: String) -> Never { BenchmarkCommandLine.fail(program: "workbench-bench-training", message) }
var count = commandLine.positive("--count"), classCount = commandLine.positive("--classes")
guard let tolerance = Double(options["--tolerance"]!), tolerance > 0 else { fail("--tolerance must be positive") }
let threads = commandLine.positive("--threads"), runs = commandLine.positive("--runs")
let dimension = 1280

extension SplitMix64 {
    /// `count` uniform floats in `range`.
    mutating func floats(_ count: Int, in range: ClosedRange<Float>) -> [Float] {
        (0..<count).map { _ in Float.random(in: range, using: &self) }
    }
}
// SplitMix64, so the workload is the same on every machine.
var generator = SplitMix64(seed: 2024)
let classMeans = (0..<classCount).map { _ in generator.floats(dimension, in: 0...0.15) }
let factors = (0..<8).map { _ in generator.floats(dimension, in: -0.3...0.3) }
var features = [Float](repeating: 0, count: count * dimension)
var labels = [Int](repeating: 0, count: count)
for sample in 0..<count {
    let label = (sample * 7 + sample / 13) % classCount
    labels[sample] = label
    let loadings = generator.floats(8, in: -1...1)
    let noise = generator.floats(dimension, in: -1...1)
    for column in 0..<dimension {
        var value = classMeans[label][column] + noise[column]
        for factor in 0..<8 { value += loadings[factor] * factors[factor][column] }
        features[sample * dimension + column] = max(0, value)
    }
}
if !options["--features"]!.isEmpty {
    // JSON Lines {"path": ..., "features": [...]}: the label is the image's folder.
    guard let text = try? String(contentsOfFile: options["--features"]!, encoding: .utf8) else { fail("cannot read \(options["--features"]!)") }
    var names: [String: Int] = [:]
    features = []; labels = []
    for line in text.split(separator: "\n") {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let path = object["path"] as? String, let vector = object["features"] as? [Double], vector.count == dimension
        else {
            fail("a line of \(options["--features"]!) is not {\"path\", \"features\": [1280 numbers]}")
        }
        let label = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
        if names[label] == nil { names[label] = names.count }
        labels.append(names[label]!)
        features += vector.map(Float.init)
    }
    count = labels.count
    classCount = names.count
}
GEMM.setBLASThreads(1)

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

if options["--trace"] == "yes" {
    // One fold's chain along the grid, strong to weak, with iterations and time per strength.
    let assignment = StratifiedFolds.assign(labels: labels, classCount: classCount, folds: 5, seed: 42)
    let rows = (0..<count).filter { assignment[$0] != 0 }
    var training = [Float]()
    for row in rows { training += features[(row * dimension)..<((row + 1) * dimension)] }
    let standardizer = Standardizer(fitting: training, count: rows.count, dimension: dimension)
    let standardized = standardizer.apply(training, count: rows.count)
    var previous: LogisticRegressionModel?
    for l2 in L2Search.defaultGrid.reversed() {
        let clock = ContinuousClock(), start = clock.now
        let outcome = LogisticRegressionTrainer.train(
            features: standardized, labels: rows.map { labels[$0] }, count: rows.count,
            dimension: dimension, classCount: classCount,
            settings: .init(l2: l2, tolerance: tolerance), initialModel: previous)
        previous = outcome.model
        print(
            String(
                format: "l2 %-8g %4d iterations %.3f s%@", l2, outcome.iterations, seconds(clock.now - start),
                outcome.converged ? "" : " (not converged)"))
    }
    exit(0)
}

let plan = HeldOutPlan.automatic(trainingCount: count)
print("\(count) × \(dimension) features, \(classCount) classes, \(plan.summary), grid of \(L2Search.defaultGrid.count), \(threads) thread(s)")
var totals: [Double] = []
for run in 1...runs {
    let clock = ContinuousClock()
    let start = clock.now
    let selection = L2Search.select(
        features: features, labels: labels, count: count, dimension: dimension,
        classCount: classCount, plan: plan, seed: 42, settings: .init(l2: 1, tolerance: tolerance), threads: threads)
    let selected = clock.now
    let temperature = TemperatureScaling.fit(
        logits: selection.heldOutLogits,
        labels: selection.heldOutSamples.map { labels[$0] }, classCount: classCount)
    let standardizer = Standardizer(fitting: features, count: count, dimension: dimension)
    let final = LogisticRegressionTrainer.train(
        features: standardizer.apply(features, count: count), labels: labels,
        count: count, dimension: dimension, classCount: classCount,
        settings: .init(l2: selection.l2, tolerance: tolerance))
    let finished = clock.now
    let accuracy = selection.candidates[selection.chosenIndex].accuracy
    print(
        String(
            format: "run %d: selection %.2f s, temperature + final fit %.2f s, total %.2f s (l2 %g, held-out %.1f %%, T %.2f, final %d iterations%@)",
            run, seconds(selected - start), seconds(finished - selected), seconds(finished - start), selection.l2,
            accuracy * 100, temperature, final.iterations, final.converged ? "" : ", not converged"))
    totals.append(seconds(finished - start))
}
print(String(format: "median total: %.2f s", totals.sorted()[totals.count / 2]))
