// workbench-bench-neighbours: seconds for the exact k-nearest-neighbour search doctor runs over cached features.
//
// Usage: workbench-bench-neighbours [--count N] [--dimension D] [--k K] [--threads T] [--check C]
// Builds N random non-negative D-dimensional vectors (seeded SplitMix64, shaped like pooled CNN features: a shared
// part plus noise, so similarities crowd together as real ones do), runs `NearestNeighbours.search` once and prints
// the seconds and the multiply-add rate. With --check C, the first C rows' answers are compared with the brute-force
// reference (`NearestNeighboursReference`) on the same vectors, and the largest similarity difference is printed.
// BLAS stays single-threaded (as after feature extraction); query blocks spread over T threads.
import BenchSupport
import Foundation
import Neighbours
import TensorCore

let commandLine = BenchmarkCommandLine(
    program: "workbench-bench-neighbours",
    defaults: ["--count": "20000", "--dimension": "1280", "--k": "10", "--threads": "\(Parallel.coreCount)", "--check": "0"])
let count = commandLine.positive("--count"), dimension = commandLine.positive("--dimension")
let k = commandLine.positive("--k"), threads = commandLine.positive("--threads")
let check = Int(commandLine.options["--check"]!) ?? 0

var generator = SplitMix64(seed: 46)
let shared = (0..<dimension).map { _ in Float.random(in: 0...1, using: &generator) }
var features = [Float](repeating: 0, count: count * dimension)
for row in 0..<count {
    for column in 0..<dimension { features[row * dimension + column] = max(0, shared[column] + Float.random(in: -0.8...0.8, using: &generator)) }
}
GEMM.setBLASThreads(1)
let started = Date()
let lists = NearestNeighbours.search(features: features, count: count, dimension: dimension, k: k, threads: threads)
let seconds = Date().timeIntervalSince(started)
let rate = Double(count) * Double(count) * Double(dimension) / seconds / 1e9
print(
    String(
        format: "neighbours: %d × %d, k %d, %d threads: %.2f s (%.1f G multiply-adds/s); an N × N Float matrix would be %.0f MiB",
        count, dimension, k, threads, seconds, rate, Double(count) * Double(count) * 4 / 1_048_576))
if check > 0 {
    // The reference over all rows costs N² · D in Double; only the first `check` rows' lists are compared.
    var largest: Float = 0
    var normalized = NearestNeighbours.normalizedRows(features, count: count, dimension: dimension)
    for row in 0..<min(check, count) {
        var similarities: [(Int, Double)] = []
        for other in 0..<count where other != row {
            var dot = 0.0
            for column in 0..<dimension { dot += Double(normalized[row * dimension + column]) * Double(normalized[other * dimension + column]) }
            similarities.append((other, dot))
        }
        similarities.sort { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        for (place, listed) in lists.neighbours(of: row).enumerated() {
            largest = max(largest, abs(listed.similarity - Float(similarities[place].1)))
        }
    }
    normalized = []
    print(String(format: "checked %d rows against brute force: largest similarity difference %.2e", min(check, count), largest))
}
