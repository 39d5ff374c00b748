/// Where each phase of an order starts and where the last one ends, in samples: the best placement of the chain
/// before → phase 1 → … → phase K → after over a run of samples.
///
/// Samples `0 ..< starts[0]` are "before", phase k holds `starts[k] ..< (starts[k + 1] or end)`, and
/// `end ..< sampleCount` is "after". Every phase holds at least the minimum number of samples; "before" and
/// "after" may be empty, and are empty when the scores have no outside state.
public struct PhaseSegmentation: Sendable, Equatable {
    /// The first sample of each phase, increasing.
    public var starts: [Int]
    /// One past the last sample of the last phase (the first "after" sample, or the sample count).
    public var end: Int
    /// The summed log-probability of the placement.
    public var logProbability: Double

    /// A placement from its parts.
    public init(starts: [Int], end: Int, logProbability: Double) {
        self.starts = starts
        self.end = end
        self.logProbability = logProbability
    }

    /// The samples of phase `index`.
    public func samples(ofPhase index: Int) -> Range<Int> {
        starts[index]..<(index + 1 < starts.count ? starts[index + 1] : end)
    }

    /// The placement that maximises the summed log-probability, each phase at least `minimumSamples` long
    /// (≥ 1), or nil when the samples cannot hold every phase at that length.
    ///
    /// Exact dynamic programming (Viterbi on the left-to-right chain) in O(samples × phases) time. With `P_k` the
    /// prefix sums of phase k's scores and `O` those of the outside scores, a placement with phase starts
    /// `b_0 < b_1 < … < b_{K-1}` and end `b_K` scores
    /// `O(b_0) + Σ_k [P_k(b_{k+1}) − P_k(b_k)] + O(T) − O(b_K)`. So the best score with phase k ending at e is
    /// `F_k(e) = P_k(e) + max_{s ≤ e − m} [F_{k−1}(s) − P_k(s)]`, `F_{−1}(s) = O(s)`, and the inner maximum is a
    /// running maximum as e grows: one pass per phase. Ties keep the earliest boundary. Without an outside
    /// state, `b_0 = 0` and `b_K = T`.
    public static func best(_ scores: PhaseScores, minimumSamples: Int) -> PhaseSegmentation? {
        let count = scores.sampleCount, phaseCount = scores.phase.count
        let minimum = max(1, minimumSamples)
        guard phaseCount > 0, count >= phaseCount * minimum else { return nil }
        let outside = prefixSums(scores.outside ?? [])
        // best[e]: the best score of the chain so far with the current phase ending at sample e (−∞: impossible).
        var best = [Double](repeating: -.infinity, count: count + 1)
        if scores.outside != nil { best = outside } else { best[0] = 0 }
        // from[k][e]: where phase k starts in the best placement that ends it at e.
        var from = [[Int]](repeating: [], count: phaseCount)
        for k in 0..<phaseCount {
            let sums = prefixSums(scores.phase[k])
            var next = [Double](repeating: -.infinity, count: count + 1)
            var origin = [Int](repeating: -1, count: count + 1)
            var runningBest = -Double.infinity, runningStart = -1
            for end in minimum...count {
                let start = end - minimum
                let candidate = best[start] - sums[start]
                if candidate > runningBest {
                    runningBest = candidate
                    runningStart = start
                }
                if runningStart >= 0 {
                    next[end] = sums[end] + runningBest
                    origin[end] = runningStart
                }
            }
            best = next
            from[k] = origin
        }
        var end = count, total = best[count]
        if scores.outside != nil {
            // The last phase may end early, "after" holding the rest.
            end = -1
            total = -.infinity
            for candidate in 0...count {
                let value = best[candidate] + outside[count] - outside[candidate]
                if value > total {
                    total = value
                    end = candidate
                }
            }
        }
        guard total > -.infinity else { return nil }
        var starts = [Int](repeating: 0, count: phaseCount)
        var boundary = end
        for k in stride(from: phaseCount - 1, through: 0, by: -1) {
            boundary = from[k][boundary]
            starts[k] = boundary
        }
        return PhaseSegmentation(starts: starts, end: end, logProbability: total)
    }

    /// `sums[i]` = the sum of `values[0 ..< i]`, in Double.
    static func prefixSums(_ values: [Double]) -> [Double] {
        var sums = [Double](repeating: 0, count: values.count + 1)
        for (index, value) in values.enumerated() { sums[index + 1] = sums[index] + value }
        return sums
    }
}
