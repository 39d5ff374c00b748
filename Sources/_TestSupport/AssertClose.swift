import XCTest

/// Tolerances used across the tests, each with the reason it is what it is.
public enum Tolerance {
    /// Float32 kernels that sum in a different order than their reference: a few ulps per accumulated term.
    public static let kernelVersusReference: Float = 1e-4
    /// The golden features from the 224-px inputs, as issue 2 demands (max absolute difference).
    public static let goldenFeatureMaxAbs: Float = 1e-3
    /// Float32 backward passes against their double-precision references, relative part: a weight gradient sums
    /// one product per pixel of the batch, so its rounding grows with its size (use with `kernelVersusReference`
    /// as the absolute part).
    public static let backwardVersusReferenceRelative: Float = 1e-4
}

/// Asserts that two arrays have the same count and agree within `absolute + relative·|expected|` elementwise.
/// On failure it names the first mismatch and the largest difference, at the caller's file and line.
public func assertClose(
    _ actual: [Float], _ expected: [Float],
    absolute: Float = Tolerance.kernelVersusReference, relative: Float = 0,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    guard actual.count == expected.count else {
        XCTFail("shape mismatch: \(actual.count) values vs \(expected.count) expected. \(message())", file: file, line: line)
        return
    }
    var firstMismatch: Int?
    var maxDifference: Float = 0
    for index in actual.indices {
        let difference = abs(actual[index] - expected[index])
        if !(difference <= absolute + relative * abs(expected[index])) {
            if firstMismatch == nil { firstMismatch = index }
        }
        if difference > maxDifference || difference.isNaN { maxDifference = difference }
    }
    if let index = firstMismatch {
        XCTFail(
            "first mismatch at [\(index)]: \(actual[index]) vs \(expected[index]); max difference \(maxDifference). \(message())",
            file: file, line: line)
    }
}

/// Cosine similarity of two equal-length vectors, in double precision.
public func cosineSimilarity(_ a: [Float], _ b: [Float]) -> Double {
    precondition(a.count == b.count)
    var dot = 0.0, normA = 0.0, normB = 0.0
    for index in a.indices {
        dot += Double(a[index]) * Double(b[index])
        normA += Double(a[index]) * Double(a[index])
        normB += Double(b[index]) * Double(b[index])
    }
    return dot / max((normA * normB).squareRoot(), .leastNormalMagnitude)
}

/// A small deterministic generator (SplitMix64) for test inputs.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// `count` values uniform in `range`.
    public mutating func floats(_ count: Int, in range: ClosedRange<Float> = -1...1) -> [Float] {
        (0..<count).map { _ in Float.random(in: range, using: &self) }
    }
}
