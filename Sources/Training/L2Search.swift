/// The outcome of choosing `l2` on a validation set.
public struct L2Selection: Sendable {
    /// The chosen penalty strength.
    public var l2: Double
    /// The values tried, in the order given.
    public var grid: [Double]
    /// Validation accuracy for each value of `grid`, same order.
    public var validationAccuracies: [Double]
    /// The model trained on the training part with the chosen `l2`.
    public var outcome: TrainingOutcome
}

/// Picks the L2 strength of `LogisticRegressionTrainer` by validation accuracy.
public enum L2Search {
    /// The default grid, `0.1 … 10⁴`, one value per decade.
    ///
    /// The objective sums the per-sample losses, so `l2` corresponds to `count · λ` for a per-sample (mean-loss)
    /// strength `λ`, and to scikit-learn's `1 / C` (its default `C = 1` is `l2 = 1`). For the few hundred to few
    /// thousand images Workbench trains on, per-sample strengths from about 1e-4 (barely regularised) to about 10
    /// (heavily smoothed, useful when a 1280-d head sees few images per class) land in this range. Values much below
    /// 0.1 only matter once the data are separable, where they make L-BFGS chase growing weights for many iterations.
    public static let defaultGrid: [Double] = [0.1, 1, 10, 100, 1000, 10_000]

    /// Trains one model per grid value on the training set and returns the value with the best validation
    /// accuracy; ties go to the larger `l2` (the simpler model). `settings.l2` is ignored.
    ///
    /// Models are trained from the largest `l2` down, each warm-started from the previous optimum: the solutions
    /// change smoothly with `l2`, so this saves most iterations at the weakly regularised end. The order is fixed,
    /// so the result is deterministic. With an empty validation set all values tie and the largest wins.
    /// Features are `[count, dimension]` and should already be standardised.
    public static func select(grid: [Double] = defaultGrid,
                              trainingFeatures: [Float], trainingLabels: [Int], trainingCount: Int,
                              validationFeatures: [Float], validationLabels: [Int], validationCount: Int,
                              dimension: Int, classCount: Int,
                              settings: LogisticRegressionSettings) -> L2Selection {
        precondition(!grid.isEmpty && grid.allSatisfy { $0 >= 0 }, "L2Search: grid must hold non-negative values")
        precondition(validationLabels.count == validationCount, "L2Search: one label per validation sample")
        let order = grid.indices.sorted { grid[$0] > grid[$1] || (grid[$0] == grid[$1] && $0 < $1) }
        var accuracies = [Double](repeating: 0, count: grid.count)
        var best: (index: Int, accuracy: Double, outcome: TrainingOutcome)?
        var previous: LogisticRegressionModel?
        for index in order {
            var valueSettings = settings
            valueSettings.l2 = grid[index]
            let outcome = LogisticRegressionTrainer.train(
                features: trainingFeatures, labels: trainingLabels, count: trainingCount,
                dimension: dimension, classCount: classCount, settings: valueSettings, initialModel: previous)
            previous = outcome.model
            let predictions = outcome.model.predictions(validationFeatures, count: validationCount)
            let correct = zip(predictions, validationLabels).filter { $0 == $1 }.count
            let accuracy = validationCount > 0 ? Double(correct) / Double(validationCount) : 0
            accuracies[index] = accuracy
            // Visiting larger values first and replacing only on a strict gain gives ties to the larger l2.
            if best == nil || accuracy > best!.accuracy { best = (index, accuracy, outcome) }
        }
        return L2Selection(l2: grid[best!.index], grid: grid, validationAccuracies: accuracies, outcome: best!.outcome)
    }
}
