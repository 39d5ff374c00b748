import TensorCore

/// How held-out predictions are made to choose the L2 strength and fit the temperature.
public enum HeldOutPlan: Sendable, Equatable {
    /// Stratified k-fold cross-validation over the training images, run `repeats` times with fresh folds; every
    /// image is held out once per repeat.
    case crossValidation(folds: Int, repeats: Int)
    /// One stratified held-out share of the training images (`StratifiedSplit` with this fraction).
    case holdOut(fraction: Double)

    /// Folds of the default cross-validation.
    public static let defaultFolds = 5
    /// Above this many training images one held-out split is precise enough and k-fold costs too much.
    public static let largeDatasetCount = 2000
    /// The held-out share of a large dataset.
    public static let largeDatasetFraction = 0.2
    /// Small datasets repeat the k-fold until about this many held-out predictions exist: with a few hundred
    /// images a single fold assignment moves the accuracy estimate by several points.
    public static let targetPredictions = 1000
    /// The most repeats, so tiny datasets stay fast.
    public static let maximumRepeats = 5

    /// The default plan for `count` training images: one stratified 20 % split above 2,000 images, otherwise
    /// 5-fold cross-validation repeated `min(5, ⌈1000 / count⌉)` times.
    public static func automatic(trainingCount count: Int) -> HeldOutPlan {
        if count > largeDatasetCount { return .holdOut(fraction: largeDatasetFraction) }
        let repeats = min(maximumRepeats, max(1, (targetPredictions + max(count, 1) - 1) / max(count, 1)))
        return .crossValidation(folds: defaultFolds, repeats: repeats)
    }

    /// A short description for reports, e.g. "5-fold cross-validation, 3 repeats".
    public var summary: String {
        switch self {
        case .crossValidation(let folds, let repeats):
            return "\(folds)-fold cross-validation" + (repeats > 1 ? ", \(repeats) repeats" : "")
        case .holdOut(let fraction):
            return "stratified \(Int((fraction * 100).rounded())) % held out"
        }
    }
}

/// Seeded stratified k-fold assignment.
public enum StratifiedFolds {
    /// The fold (`0..<folds`) of every sample, `[labels.count]`.
    ///
    /// Each class's indices are shuffled (Fisher–Yates driven by SplitMix64 seeded from `seed` and the class) and
    /// dealt to the folds in turn. The dealing continues where the previous class stopped, so fold sizes differ by
    /// at most one overall, and each class's count differs by at most one between folds (stratified). Every sample
    /// is in exactly one fold (disjoint). The result depends only on the arguments.
    public static func assign(labels: [Int], classCount: Int, folds: Int, seed: UInt64) -> [Int] {
        precondition(folds >= 1, "StratifiedFolds: at least one fold")
        precondition(labels.allSatisfy { (0..<classCount).contains($0) }, "StratifiedFolds: label out of range")
        var members = [[Int]](repeating: [], count: classCount)
        for (index, label) in labels.enumerated() { members[label].append(index) }
        var assignment = [Int](repeating: 0, count: labels.count)
        var next = 0
        for classIndex in 0..<classCount {
            var generator = SplitMix64(seed: seed ^ (UInt64(classIndex) &* 0x9FB2_1C65_1E98_DF25))
            var shuffled = members[classIndex]
            generator.shuffle(&shuffled)
            for index in shuffled {
                assignment[index] = next
                next = (next + 1) % folds
            }
        }
        return assignment
    }

    /// The seed of repeat `repeatIndex`: repeat 0 uses `seed` itself, later ones a SplitMix64 scramble of it, so
    /// the repeats' fold assignments are independent.
    public static func seed(_ seed: UInt64, repeat repeatIndex: Int) -> UInt64 {
        guard repeatIndex > 0 else { return seed }
        var generator = SplitMix64(seed: seed &+ UInt64(repeatIndex) &* 0xA076_1D64_78BD_642F)
        return generator.next()
    }
}
