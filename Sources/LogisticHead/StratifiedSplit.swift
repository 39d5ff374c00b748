import TensorCore

/// Seeded, per-class split of a labelled set into training and validation indices.
public enum StratifiedSplit {
    /// Classes with fewer images than this contribute nothing to validation: holding one back would cost too
    /// large a share of their training data.
    public static let minimumClassSizeForValidation = 5

    /// Splits sample indices `0..<labels.count` per class.
    ///
    /// For each class with `n ≥ 5` samples, its indices are shuffled (Fisher–Yates driven by SplitMix64 seeded
    /// with `seed` mixed with the class index) and the first `max(1, round(fraction · n))` — but at most `n − 1`,
    /// so training always keeps one — go to validation. Smaller classes go entirely to training, and
    /// `fraction == 0` gives no validation at all. Both returned lists are sorted ascending, disjoint, and
    /// together hold every index exactly once. The result depends only on the arguments.
    public static func split(labels: [Int], classCount: Int, fraction: Double, seed: UInt64)
        -> (training: [Int], validation: [Int])
    {
        precondition(fraction >= 0 && fraction <= 1, "StratifiedSplit: fraction must be in 0...1")
        precondition(labels.allSatisfy { (0..<classCount).contains($0) }, "StratifiedSplit: label out of range")
        var members = [[Int]](repeating: [], count: classCount)
        for (index, label) in labels.enumerated() { members[label].append(index) }
        var isValidation = [Bool](repeating: false, count: labels.count)
        for classIndex in 0..<classCount {
            let n = members[classIndex].count
            guard fraction > 0, n >= minimumClassSizeForValidation else { continue }
            let wanted = max(1, Int((fraction * Double(n)).rounded(.toNearestOrAwayFromZero)))
            let taken = min(wanted, n - 1)
            // Each class gets its own stream, so adding images to one class does not reshuffle the others.
            var generator = SplitMix64(seed: seed ^ (UInt64(classIndex) &* 0xD1B5_4A32_D192_ED03))
            var shuffled = members[classIndex]
            generator.shuffle(&shuffled)
            for index in shuffled.prefix(taken) { isValidation[index] = true }
        }
        let training = labels.indices.filter { !isValidation[$0] }
        let validation = labels.indices.filter { isValidation[$0] }
        return (training, validation)
    }
}
