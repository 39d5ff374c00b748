extension PhaseSegmentation {
    /// The naive reference of `best(_:minimumSamples:)`: the same recurrence written directly, every segment's
    /// score summed afresh and every earlier boundary tried, O(samples² × phases × samples) time. For tests only
    /// (a few hundred samples).
    public static func naiveBest(_ scores: PhaseScores, minimumSamples: Int) -> PhaseSegmentation? {
        let count = scores.sampleCount, phaseCount = scores.phase.count
        let minimum = max(1, minimumSamples)
        guard phaseCount > 0, count >= phaseCount * minimum else { return nil }
        func sum(_ values: [Double], _ range: Range<Int>) -> Double { range.reduce(0) { $0 + values[$1] } }
        // previous[s]: the best score of everything before sample s, the previous phase ending at s.
        var previous = (0...count).map { start -> Double in
            if let outside = scores.outside { return sum(outside, 0..<start) }
            return start == 0 ? 0 : -.infinity
        }
        var origins: [[Int]] = []
        for k in 0..<phaseCount {
            var current = [Double](repeating: -.infinity, count: count + 1)
            var origin = [Int](repeating: -1, count: count + 1)
            for end in 0...count {
                for start in stride(from: 0, through: end - minimum, by: 1) where previous[start] > -.infinity {
                    let value = previous[start] + sum(scores.phase[k], start..<end)
                    if value > current[end] {
                        current[end] = value
                        origin[end] = start
                    }
                }
            }
            previous = current
            origins.append(origin)
        }
        var end = -1, total = -Double.infinity
        for candidate in 0...count {
            let rest: Double
            if let outside = scores.outside { rest = sum(outside, candidate..<count) } else { rest = candidate == count ? 0 : -.infinity }
            if previous[candidate] + rest > total {
                total = previous[candidate] + rest
                end = candidate
            }
        }
        guard total > -.infinity else { return nil }
        var starts = [Int](repeating: 0, count: phaseCount), boundary = end
        for k in stride(from: phaseCount - 1, through: 0, by: -1) {
            boundary = origins[k][boundary]
            starts[k] = boundary
        }
        return PhaseSegmentation(starts: starts, end: end, logProbability: total)
    }
}
