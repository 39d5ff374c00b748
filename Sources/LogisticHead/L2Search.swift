import Foundation
import TensorCore

/// How one L2 strength scored on the held-out predictions.
public struct L2Candidate: Sendable, Equatable, Codable {
    /// The penalty strength.
    public var l2: Double
    /// Fraction of held-out predictions that were right.
    public var accuracy: Double
    /// Mean held-out `−log p(true label)` (natural log, uncalibrated probabilities).
    public var logLoss: Double

    /// Creates a candidate's score.
    public init(l2: Double, accuracy: Double, logLoss: Double) {
        self.l2 = l2
        self.accuracy = accuracy
        self.logLoss = logLoss
    }
}

/// The outcome of choosing `l2` on held-out predictions.
public struct L2Selection: Sendable {
    /// The chosen penalty strength.
    public var l2: Double
    /// Every strength tried with its score, in the order of the grid given.
    public var candidates: [L2Candidate]
    /// Index of the chosen strength in `candidates`.
    public var chosenIndex: Int
    /// How the held-out predictions were made; nil for a separate validation set.
    public var plan: HeldOutPlan?
    /// Distinct images that were held out (each may be predicted once per repeat).
    public var heldOutCount: Int
    /// Held-out logits of the chosen strength, `[heldOutSamples.count, classCount]`: all predictions, repeat by
    /// repeat, each repeat in ascending sample order.
    public var heldOutLogits: [Float]
    /// The sample (index into the features given) of each row of `heldOutLogits`.
    public var heldOutSamples: [Int]
    /// For a separate validation set: the standardiser and model fitted on all training samples with the chosen
    /// strength at the full tolerance (nothing is left to refit). Nil for cross-validation and held-out splits.
    public var fittedOnAll: (standardizer: Standardizer, outcome: TrainingOutcome)?
    /// For cross-validation and held-out splits: the first fold's model with the chosen strength and the
    /// standardiser it was fitted with, a close starting point for the final fit on all samples
    /// (`LogisticRegressionModel.restandardized(from:to:)`).
    public var warmStart: (standardizer: Standardizer, model: LogisticRegressionModel)?
}

/// Extra training rows derived from training samples, such as augmented views of their images. Each row belongs
/// to one sample (its owner) and has its owner's label; wherever the held-out predictions split the samples, a row
/// goes with its owner into the training part, and is never held out, so no image is judged by a model that saw a
/// view of it.
public struct DerivedRows: Sendable {
    /// `[owners.count, dimension]`, raw like the samples' features.
    public var features: [Float]
    /// The sample each row was made from (an index into the samples).
    public var owners: [Int]

    /// Rows and their owners.
    public init(features: [Float], owners: [Int]) {
        self.features = features
        self.owners = owners
    }

    /// No rows.
    public static let none = DerivedRows(features: [], owners: [])
}

/// One fit of the held-out predictions: the rows it trains on and the samples it holds out.
public struct HeldOutTask: Sendable, Equatable {
    /// Rows trained on: samples are `0..<count`, derived row k is `count + k`.
    public var training: [Int]
    /// Samples held out (never a derived row).
    public var heldOut: [Int]
}

/// Picks the L2 strength of `LogisticRegressionTrainer` from held-out predictions.
///
/// Each candidate is scored by held-out accuracy. Candidates within a near-tie of the best accuracy (half its
/// standard error, but at least one image) are told apart by held-out log-loss, the lowest winning; an exact tie in
/// log-loss goes to the larger `l2` (the simpler model). Accuracy alone is too coarse on small data: a few hundred
/// images give steps of a few tenths of a point, and many strengths tie.
///
/// Along the grid, models are trained from the largest `l2` down, each warm-started from the previous optimum: the
/// solutions change smoothly with `l2`, so this saves most iterations at the weakly regularised end.
/// Standardisation is fitted on each fold's training part only, so held-out images never shape their own inputs.
public enum L2Search {
    /// The default grid: `1e-4 … 1e4`, one value per decade (eight decades).
    ///
    /// The objective sums the per-sample losses, so `l2` is scikit-learn's `1 / C` and the grid is its
    /// `C = 1e4 … 1e-4`. Frozen features of easy, separable data (digits, photos of distinct things) are best barely
    /// regularised, near-duplicates of few images (footwear, faces) need the strong end.
    public static let defaultGrid: [Double] = (-4...4).map { pow(10, Double($0)) }

    /// Convergence tolerance of the fits that only score a strength (the mean-loss gradient, see
    /// `LogisticRegressionSettings.tolerance`): held-out accuracy and log-loss stop moving long before 1e-6, and
    /// the looser stop halves the iterations. The final model is always fitted at the caller's tolerance.
    public static let selectionTolerance = 1e-5

    /// The near-tie width for a best accuracy `accuracy` measured on `count` distinct images:
    /// `max(½ · √(a (1 − a) / n), 1 / n)`.
    public static func nearTieTolerance(accuracy: Double, count: Int) -> Double {
        guard count > 0 else { return 0 }
        let n = Double(count)
        return max(0.5 * (accuracy * (1 - accuracy) / n).squareRoot(), 1 / n)
    }

    /// Index of the winning candidate: among those whose accuracy is within `nearTieTolerance` of the best, the
    /// lowest log-loss; among equal log-losses, the largest `l2`; among equal `l2`, the first.
    public static func choose(_ candidates: [L2Candidate], heldOutCount: Int) -> Int {
        precondition(!candidates.isEmpty, "L2Search: no candidates")
        let best = candidates.map(\.accuracy).max()!
        // A hair of slack so that equal counts computed in a different order never fall out of the tie.
        let tolerance = nearTieTolerance(accuracy: best, count: heldOutCount) + 1e-12
        var chosen: Int?
        for index in candidates.indices where candidates[index].accuracy >= best - tolerance {
            guard let current = chosen else { chosen = index; continue }
            let candidate = candidates[index], incumbent = candidates[current]
            if candidate.logLoss < incumbent.logLoss
                || (candidate.logLoss == incumbent.logLoss && candidate.l2 > incumbent.l2)
            {
                chosen = index
            }
        }
        return chosen!
    }

    /// The fits `plan` asks for, over `count` samples with `labels`: the folds or the split are drawn over the
    /// samples alone (as without derived rows), then each derived row joins the training part of every task that
    /// trains on its owner. Tasks with an empty part are dropped.
    public static func tasks(
        plan: HeldOutPlan, labels: [Int], classCount: Int, seed: UInt64,
        derivedOwners: [Int] = []
    ) -> [HeldOutTask] {
        let count = labels.count
        var tasks: [HeldOutTask] = []
        func task(heldOut: [Int], training: [Int]) -> HeldOutTask {
            var inTraining = [Bool](repeating: false, count: count)
            for sample in training { inTraining[sample] = true }
            let derived = derivedOwners.indices.filter { inTraining[derivedOwners[$0]] }.map { count + $0 }
            return HeldOutTask(training: training + derived, heldOut: heldOut)
        }
        switch plan {
        case .crossValidation(let folds, let repeats):
            precondition(folds >= 2 && repeats >= 1, "L2Search: at least 2 folds and 1 repeat")
            for repeatIndex in 0..<repeats {
                let assignment = StratifiedFolds.assign(
                    labels: labels, classCount: classCount, folds: folds,
                    seed: StratifiedFolds.seed(seed, repeat: repeatIndex))
                for fold in 0..<folds {
                    let heldOut = (0..<count).filter { assignment[$0] == fold }
                    let training = (0..<count).filter { assignment[$0] != fold }
                    if !heldOut.isEmpty && !training.isEmpty { tasks.append(task(heldOut: heldOut, training: training)) }
                }
            }
        case .holdOut(let fraction):
            let split = StratifiedSplit.split(labels: labels, classCount: classCount, fraction: fraction, seed: seed)
            if !split.validation.isEmpty { tasks.append(task(heldOut: split.validation, training: split.training)) }
        }
        return tasks
    }

    /// Chooses `l2` by held-out predictions within the training samples, following `plan`.
    ///
    /// `features` are raw (not standardised), `[count, dimension]`. `derived` rows (augmented views) train
    /// alongside their owners and are never held out (`tasks(plan:labels:classCount:seed:derivedOwners:)`).
    /// Cross-validation folds run on up to `threads` threads at once; each fold's work is sequential and the
    /// folds' results are combined in a fixed order, so the result depends only on the inputs (with BLAS
    /// single-threaded, as `FeatureExtractor` leaves it). `settings.l2` is ignored.
    public static func select(
        grid: [Double] = defaultGrid, features: [Float], labels: [Int], count: Int,
        dimension: Int, classCount: Int, plan: HeldOutPlan, seed: UInt64,
        settings: LogisticRegressionSettings, threads: Int = 1,
        derived: DerivedRows = .none
    ) -> L2Selection {
        precondition(!grid.isEmpty && grid.allSatisfy { $0 >= 0 }, "L2Search: grid must hold non-negative values")
        precondition(labels.count == count && features.count == count * dimension, "L2Search: one label and one row per sample")
        precondition(
            derived.features.count == derived.owners.count * dimension
                && derived.owners.allSatisfy { (0..<count).contains($0) }, "L2Search: one owned row per derived row")
        let tasks = Self.tasks(plan: plan, labels: labels, classCount: classCount, seed: seed, derivedOwners: derived.owners)
        let heldOutCount: Int
        switch plan {
        case .crossValidation: heldOutCount = count
        case .holdOut: heldOutCount = tasks.first?.heldOut.count ?? 0
        }
        func rowLabel(_ row: Int) -> Int { row < count ? labels[row] : labels[derived.owners[row - count]] }

        let order = descendingOrder(grid)
        var scoringSettings = settings
        scoringSettings.tolerance = max(settings.tolerance, selectionTolerance)
        let results = UnsafeMutableBufferPointer<[[Float]]>.allocate(capacity: tasks.count)
        results.initialize(repeating: [])
        defer { results.deallocate() }
        // The first task's standardiser and models, kept to warm-start the final fit.
        let firstTask = UnsafeMutableBufferPointer<(Standardizer, [TrainingOutcome])>.allocate(capacity: 1)
        defer { firstTask.deallocate() }
        Parallel.forEach(tasks.count, threads: max(1, threads)) { taskIndex in
            let task = tasks[taskIndex]
            let training = gather(features, derived: derived.features, sampleCount: count, rows: task.training, dimension: dimension)
            let heldOut = gather(features, derived: derived.features, sampleCount: count, rows: task.heldOut, dimension: dimension)
            let standardizer = Standardizer(fitting: training, count: task.training.count, dimension: dimension)
            let fitted = heldOutLogits(
                grid: grid, order: order,
                training: standardizer.apply(training, count: task.training.count),
                trainingLabels: task.training.map(rowLabel), trainingCount: task.training.count,
                heldOut: standardizer.apply(heldOut, count: task.heldOut.count), heldOutCount: task.heldOut.count,
                dimension: dimension, classCount: classCount, settings: scoringSettings)
            results[taskIndex] = fitted.logits
            if taskIndex == 0 { firstTask.initialize(repeating: (standardizer, fitted.outcomes)) }
        }

        // Combine in task order: repeat by repeat, fold by fold; rows then sorted by sample within each repeat.
        let samples = tasks.flatMap(\.heldOut)
        var candidates: [L2Candidate] = []
        var logitsPerGrid: [[Float]] = []
        for gridIndex in grid.indices {
            let logits = (0..<tasks.count).flatMap { results[$0][gridIndex] }
            candidates.append(score(l2: grid[gridIndex], logits: logits, labels: samples.map { labels[$0] }, classCount: classCount))
            logitsPerGrid.append(logits)
        }
        let chosen = candidates.isEmpty || samples.isEmpty ? order[0] : choose(candidates, heldOutCount: heldOutCount)
        let (sortedSamples, sortedLogits) = sortedByRepeat(
            samples: samples, logits: logitsPerGrid[chosen],
            classCount: classCount, repeatLength: heldOutCount)
        let warmStart = tasks.isEmpty ? nil : (firstTask[0].0, firstTask[0].1[chosen].model)
        if !tasks.isEmpty { firstTask.deinitialize() }
        return L2Selection(
            l2: grid[chosen], candidates: candidates, chosenIndex: chosen, plan: plan,
            heldOutCount: heldOutCount, heldOutLogits: sortedLogits, heldOutSamples: sortedSamples,
            fittedOnAll: nil, warmStart: warmStart)
    }

    /// Chooses `l2` on a separate validation set: models are fitted on all training samples (standardised with
    /// their own statistics) along the grid and scored on the validation samples. Features are raw.
    public static func select(
        grid: [Double] = defaultGrid,
        trainingFeatures: [Float], trainingLabels: [Int], trainingCount: Int,
        validationFeatures: [Float], validationLabels: [Int], validationCount: Int,
        dimension: Int, classCount: Int, settings: LogisticRegressionSettings
    ) -> L2Selection {
        precondition(!grid.isEmpty && grid.allSatisfy { $0 >= 0 }, "L2Search: grid must hold non-negative values")
        precondition(validationLabels.count == validationCount, "L2Search: one label per validation sample")
        let standardizer = Standardizer(fitting: trainingFeatures, count: trainingCount, dimension: dimension)
        let order = descendingOrder(grid)
        let training = standardizer.apply(trainingFeatures, count: trainingCount)
        let validation = standardizer.apply(validationFeatures, count: validationCount)
        var scoringSettings = settings
        scoringSettings.tolerance = max(settings.tolerance, selectionTolerance)
        let fitted = heldOutLogits(
            grid: grid, order: order, training: training, trainingLabels: trainingLabels, trainingCount: trainingCount,
            heldOut: validation, heldOutCount: validationCount, dimension: dimension, classCount: classCount,
            settings: scoringSettings)
        let candidates = grid.indices.map {
            score(l2: grid[$0], logits: fitted.logits[$0], labels: validationLabels, classCount: classCount)
        }
        let chosen = validationCount == 0 ? order[0] : choose(candidates, heldOutCount: validationCount)
        // The chosen strength once more at the caller's tolerance: this is the final model.
        var finalSettings = settings
        finalSettings.l2 = grid[chosen]
        let final = LogisticRegressionTrainer.train(
            features: training, labels: trainingLabels, count: trainingCount, dimension: dimension,
            classCount: classCount, settings: finalSettings, initialModel: fitted.outcomes[chosen].model)
        return L2Selection(
            l2: grid[chosen], candidates: candidates, chosenIndex: chosen, plan: nil,
            heldOutCount: validationCount, heldOutLogits: final.model.logits(validation, count: validationCount),
            heldOutSamples: Array(0..<validationCount),
            fittedOnAll: (standardizer, final), warmStart: nil)
    }

    /// Grid indices from the largest value to the smallest (ties keep grid order).
    private static func descendingOrder(_ grid: [Double]) -> [Int] {
        grid.indices.sorted { grid[$0] > grid[$1] || (grid[$0] == grid[$1] && $0 < $1) }
    }

    /// Fits one model per grid value on standardised `training` (warm-started from the larger value before) and
    /// returns the held-out logits of each, `[grid.count][heldOutCount · classCount]`, in grid order.
    private static func heldOutLogits(
        grid: [Double], order: [Int], training: [Float], trainingLabels: [Int],
        trainingCount: Int, heldOut: [Float], heldOutCount: Int, dimension: Int,
        classCount: Int, settings: LogisticRegressionSettings
    )
        -> (logits: [[Float]], outcomes: [TrainingOutcome])
    {
        var logits = [[Float]](repeating: [], count: grid.count)
        var outcomes = [TrainingOutcome?](repeating: nil, count: grid.count)
        var previous: LogisticRegressionModel?
        for index in order {
            var valueSettings = settings
            valueSettings.l2 = grid[index]
            let outcome = LogisticRegressionTrainer.train(
                features: training, labels: trainingLabels, count: trainingCount, dimension: dimension,
                classCount: classCount, settings: valueSettings, initialModel: previous)
            previous = outcome.model
            logits[index] = outcome.model.logits(heldOut, count: heldOutCount)
            outcomes[index] = outcome
        }
        return (logits, outcomes.map { $0! })
    }

    /// Accuracy and mean log-loss of `logits` `[labels.count, classCount]`.
    static func score(l2: Double, logits: [Float], labels: [Int], classCount: Int) -> L2Candidate {
        guard !labels.isEmpty else { return L2Candidate(l2: l2, accuracy: 0, logLoss: 0) }
        var correct = 0
        var loss = 0.0
        for (row, label) in labels.enumerated() {
            let values = logits[(row * classCount)..<((row + 1) * classCount)]
            let largest = Double(values.max() ?? 0)
            if values.indexOfMaximum == label { correct += 1 }
            var sum = 0.0
            for value in values { sum += exp(Double(value) - largest) }
            loss += largest + log(sum) - Double(values[values.startIndex + label])
        }
        return L2Candidate(l2: l2, accuracy: Double(correct) / Double(labels.count), logLoss: loss / Double(labels.count))
    }

    /// Rows regrouped so that each repeat (a run of `repeatLength` rows) lists its samples in ascending order.
    private static func sortedByRepeat(samples: [Int], logits: [Float], classCount: Int, repeatLength: Int)
        -> ([Int], [Float])
    {
        guard repeatLength > 0, !samples.isEmpty else { return (samples, logits) }
        var sortedSamples: [Int] = [], sortedLogits: [Float] = []
        sortedSamples.reserveCapacity(samples.count)
        sortedLogits.reserveCapacity(logits.count)
        var start = 0
        while start < samples.count {
            let end = min(samples.count, start + repeatLength)
            let rows = (start..<end).sorted { samples[$0] < samples[$1] }
            for row in rows {
                sortedSamples.append(samples[row])
                sortedLogits += logits[(row * classCount)..<((row + 1) * classCount)]
            }
            start = end
        }
        return (sortedSamples, sortedLogits)
    }

    /// The rows `rows` of `features` `[sampleCount, dimension]` followed by `derived` `[·, dimension]`, in that order.
    private static func gather(_ features: [Float], derived: [Float], sampleCount: Int, rows: [Int], dimension: Int) -> [Float] {
        var result = [Float]()
        result.reserveCapacity(rows.count * dimension)
        for row in rows {
            if row < sampleCount {
                result += features[(row * dimension)..<((row + 1) * dimension)]
            } else {
                result += derived[((row - sampleCount) * dimension)..<((row - sampleCount + 1) * dimension)]
            }
        }
        return result
    }
}
