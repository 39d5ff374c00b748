import Phases
import XCTest
import _TestSupport

final class PhaseSegmentationTests: XCTestCase {
    /// Sums of a few hundred Doubles in different orders agree this closely.
    private let scoreTolerance = 1e-9

    /// Random scores: `phaseCount` phase rows and, when `outside`, an outside row, each value a log-probability.
    private func randomScores(samples: Int, phases phaseCount: Int, outside: Bool, generator: inout SeededGenerator) -> PhaseScores {
        func row() -> [Double] { (0..<samples).map { _ in -Double.random(in: 0..<6, using: &generator) } }
        return PhaseScores(phase: (0..<phaseCount).map { _ in row() }, outside: outside ? row() : nil)
    }

    /// Every placement enumerated: phase starts b_0 < … < b_{K−1} and end b_K with each phase ≥ minimum samples,
    /// "before" and "after" empty when there is no outside row; the best summed score, computed directly.
    private func bruteForceBest(_ scores: PhaseScores, minimumSamples: Int) -> Double? {
        let count = scores.sampleCount, phaseCount = scores.phase.count
        var best: Double?
        func visit(_ boundaries: [Int]) {
            if boundaries.count == phaseCount + 1 {
                if scores.outside == nil, boundaries.first != 0 || boundaries.last != count { return }
                var total = 0.0
                for t in 0..<count {
                    if t < boundaries[0] || t >= boundaries[phaseCount] {
                        total += scores.outside?[t] ?? -.infinity
                    } else {
                        let phase = (0..<phaseCount).last { boundaries[$0] <= t }!
                        total += scores.phase[phase][t]
                    }
                }
                if best == nil || total > best! { best = total }
                return
            }
            let lowest = boundaries.last.map { $0 + minimumSamples } ?? 0
            guard lowest <= count else { return }
            for next in lowest...count { visit(boundaries + [next]) }
        }
        visit([])
        return best
    }

    func testFastAndNaiveAndBruteForceAgreeOnShortRandomCases() {
        var generator = SeededGenerator(seed: 25)
        for trial in 0..<400 {
            let samples = Int.random(in: 1...10, using: &generator)
            let phaseCount = Int.random(in: 1...4, using: &generator)
            let minimum = Int.random(in: 1...3, using: &generator)
            let outside = trial % 3 != 0
            let scores = randomScores(samples: samples, phases: phaseCount, outside: outside, generator: &generator)
            let fast = PhaseSegmentation.best(scores, minimumSamples: minimum)
            let naive = PhaseSegmentation.naiveBest(scores, minimumSamples: minimum)
            let brute = bruteForceBest(scores, minimumSamples: minimum)
            let context = "trial \(trial): \(samples) samples, \(phaseCount) phases, minimum \(minimum), outside \(outside)"
            XCTAssertEqual(fast == nil, brute == nil, context)
            XCTAssertEqual(naive == nil, brute == nil, context)
            guard let fast, let naive, let brute else { continue }
            XCTAssertEqual(fast.logProbability, brute, accuracy: scoreTolerance, context)
            XCTAssertEqual(naive.logProbability, brute, accuracy: scoreTolerance, context)
            XCTAssertEqual(fast, PhaseSegmentation(starts: naive.starts, end: naive.end, logProbability: fast.logProbability), context)
            // The placement returned really scores what it claims, and keeps the rules.
            XCTAssertEqual(score(of: fast, in: scores), fast.logProbability, accuracy: scoreTolerance, context)
            for k in 0..<phaseCount { XCTAssertGreaterThanOrEqual(fast.samples(ofPhase: k).count, minimum, context) }
            if !outside { XCTAssertEqual([fast.starts[0], fast.end], [0, samples], context) }
        }
    }

    func testFastAndNaiveAgreeOnLongerRandomCases() {
        var generator = SeededGenerator(seed: 4)
        for trial in 0..<20 {
            let samples = Int.random(in: 20...60, using: &generator)
            let scores = randomScores(samples: samples, phases: 4, outside: trial % 2 == 0, generator: &generator)
            let minimum = Int.random(in: 1...4, using: &generator)
            let fast = PhaseSegmentation.best(scores, minimumSamples: minimum)
            let naive = PhaseSegmentation.naiveBest(scores, minimumSamples: minimum)
            XCTAssertEqual(fast?.starts, naive?.starts, "trial \(trial)")
            XCTAssertEqual(fast?.end, naive?.end, "trial \(trial)")
            XCTAssertEqual(fast?.logProbability ?? 0, naive?.logProbability ?? 0, accuracy: scoreTolerance)
        }
    }

    func testTooFewSamplesForTheMinimumLengthsHaveNoPlacement() {
        let scores = PhaseScores(phase: [[0, 0, 0], [0, 0, 0]], outside: [0, 0, 0])
        XCTAssertNil(PhaseSegmentation.best(scores, minimumSamples: 2))
        XCTAssertNil(PhaseSegmentation.naiveBest(scores, minimumSamples: 2))
        XCTAssertNotNil(PhaseSegmentation.best(scores, minimumSamples: 1))
    }

    func testAClearSequenceIsFoundAndOutsideLabelsOnlyOpenAndClose() throws {
        // Labels: before, a, b, after. The frames say before ×2, a ×3, b ×3, after ×2, plus one stray "before"
        // frame inside a: it may not split a phase, so a keeps it.
        let labels = ["before", "a", "b", "after"]
        let rows: [[Float]] = [
            [0.9, 0.05, 0.03, 0.02], [0.9, 0.05, 0.03, 0.02],
            [0.1, 0.8, 0.05, 0.05], [0.7, 0.2, 0.05, 0.05], [0.1, 0.8, 0.05, 0.05],
            [0.05, 0.05, 0.85, 0.05], [0.05, 0.05, 0.85, 0.05], [0.05, 0.05, 0.85, 0.05],
            [0.02, 0.03, 0.05, 0.9], [0.02, 0.03, 0.05, 0.9],
        ]
        let scores = try PhaseScores(probabilities: rows, labels: labels, order: ["a", "b"], modelPath: "m.wbmodel")
        let placement = try XCTUnwrap(PhaseSegmentation.best(scores, minimumSamples: 2))
        XCTAssertEqual(placement.starts, [2, 5])
        XCTAssertEqual(placement.end, 8)
        // The outside score is the summed probability of the labels outside the order.
        XCTAssertEqual(scores.outside?[0] ?? 0, log(Double(Float(0.9)) + Double(Float(0.02))), accuracy: 1e-6)
    }

    func testAnOrderLabelTheModelLacksIsRefusedNamingTheModel() {
        let error = assertKindedError(PhaseFailure.labelNotInModel) {
            try PhaseScores(probabilities: [[1, 0]], labels: ["a", "b"], order: ["a", "c"], modelPath: "m.wbmodel")
        }
        XCTAssertEqual(error?.path, "m.wbmodel")
        assertKindedError(PhaseFailure.invalidOrder) {
            try PhaseScores(probabilities: [[1, 0]], labels: ["a", "b"], order: ["a", "a"], modelPath: "m.wbmodel")
        }
    }

    private func score(of placement: PhaseSegmentation, in scores: PhaseScores) -> Double {
        var total = 0.0
        for t in 0..<scores.sampleCount {
            if let k = (0..<scores.phase.count).first(where: { placement.samples(ofPhase: $0).contains(t) }) {
                total += scores.phase[k][t]
            } else {
                total += scores.outside?[t] ?? -.infinity
            }
        }
        return total
    }
}
