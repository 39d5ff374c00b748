import Foundation
import TensorCore

/// How much each sample's loss term weighs.
public enum ClassWeighting: String, Sendable, Codable {
    /// Every sample weighs 1.
    case uniform
    /// A sample of class `c` weighs `count / (classCount · count_c)`, so every present class carries the same total
    /// weight (scikit-learn's `class_weight="balanced"`).
    case balanced
}

/// Settings for `LogisticRegressionTrainer`.
public struct LogisticRegressionSettings: Sendable, Equatable {
    /// Strength of the `(l2 / 2) · ‖W‖²` penalty next to the SUM of per-sample losses (scikit-learn's `1 / C`).
    public var l2: Double
    /// Maximum number of L-BFGS iterations.
    public var maxIterations: Int = 1000
    /// Convergence tolerance on the largest gradient component of the objective divided by the total sample weight
    /// (the mean-loss gradient, like scikit-learn's `tol` for lbfgs). Training also ends, converged, when a step
    /// changes the objective by less than 1e-13 relative (nothing left to gain at Double precision).
    public var tolerance: Double = 1e-6
    /// How samples are weighted.
    public var classWeighting: ClassWeighting = .uniform

    /// Creates settings; only `l2` has no default.
    public init(l2: Double, maxIterations: Int = 1000, tolerance: Double = 1e-6, classWeighting: ClassWeighting = .uniform) {
        self.l2 = l2
        self.maxIterations = maxIterations
        self.tolerance = tolerance
        self.classWeighting = classWeighting
    }
}

/// A trained linear softmax classifier: `logits = W x + b`.
public struct LogisticRegressionModel: Sendable, Equatable, Codable {
    /// Number of classes.
    public var classCount: Int
    /// Feature dimension.
    public var dimension: Int
    /// `W`, `[classCount, dimension]` row-major.
    public var weights: [Float]
    /// `b`, `[classCount]`.
    public var bias: [Float]

    /// Creates a model from its parameters.
    public init(classCount: Int, dimension: Int, weights: [Float], bias: [Float]) {
        precondition(
            classCount >= 1 && weights.count == classCount * dimension && bias.count == classCount,
            "LogisticRegressionModel: weights must be [classCount, dimension] and bias [classCount]")
        self.classCount = classCount
        self.dimension = dimension
        self.weights = weights
        self.bias = bias
    }

    /// Decodes a model, rejecting parameter arrays whose lengths do not match `classCount` and `dimension`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let classCount = try container.decode(Int.self, forKey: .classCount)
        let dimension = try container.decode(Int.self, forKey: .dimension)
        let weights = try container.decode([Float].self, forKey: .weights)
        let bias = try container.decode([Float].self, forKey: .bias)
        guard classCount >= 1, dimension >= 0, weights.count == classCount * dimension, bias.count == classCount else {
            throw DecodingError.dataCorruptedError(
                forKey: .weights, in: container,
                debugDescription:
                    "expected \(max(classCount, 0)) × \(max(dimension, 0)) weights and \(max(classCount, 0)) biases, found \(weights.count) and \(bias.count)"
            )
        }
        self.init(classCount: classCount, dimension: dimension, weights: weights, bias: bias)
    }

    /// Logits `[count, classCount]` for `features` `[count, dimension]`.
    public func logits(_ features: [Float], count: Int) -> [Float] {
        precondition(features.count == count * dimension, "LogisticRegressionModel: features must hold count × dimension values")
        var result = [Float](repeating: 0, count: count * classCount)
        for sample in 0..<count {
            for k in 0..<classCount { result[sample * classCount + k] = bias[k] }
        }
        // result [count, classCount] += features [count, dimension] · weightsᵀ (weights stored [classCount, dimension]).
        GEMM.multiplyByTranspose(features, weights, rows: count, columns: classCount, depth: dimension, into: &result, beta: 1)
        return result
    }

    /// Class probabilities `[count, classCount]`: the softmax of each row of `logits`, computed in Double.
    public func probabilities(_ features: [Float], count: Int) -> [Float] {
        var values = logits(features, count: count)
        for sample in 0..<count {
            let row = sample * classCount
            var largest = -Double.infinity
            for k in 0..<classCount { largest = max(largest, Double(values[row + k])) }
            var exponentials = [Double](repeating: 0, count: classCount)
            var sum = 0.0
            for k in 0..<classCount {
                exponentials[k] = exp(Double(values[row + k]) - largest)
                sum += exponentials[k]
            }
            for k in 0..<classCount { values[row + k] = Float(exponentials[k] / sum) }
        }
        return values
    }

    /// The index of the largest logit of each sample, `[count]` (the first one on ties).
    public func predictions(_ features: [Float], count: Int) -> [Int] {
        let values = logits(features, count: count)
        return (0..<count).map { sample in
            values[(sample * classCount)..<((sample + 1) * classCount)].indexOfMaximum
        }
    }

    /// The equivalent model on features standardised by `target`, for a model trained on features standardised by
    /// `source`: with `x = σ_t z + μ_t`, `W ((x − μ_s) / σ_s) + b = W' z + b'` for `W' = W σ_t / σ_s` (per column)
    /// and `b' = b + W ((μ_t − μ_s) / σ_s)`. Lets a model fitted on part of the data warm-start the fit on all of it.
    public func restandardized(from source: Standardizer, to target: Standardizer) -> LogisticRegressionModel {
        precondition(
            source.dimension == dimension && target.dimension == dimension,
            "LogisticRegressionModel: standardizer dimension differs")
        var moved = weights
        var movedBias = bias
        for k in 0..<classCount {
            var shift = 0.0
            for column in 0..<dimension {
                let weight = Double(weights[k * dimension + column])
                let sourceScale = Double(source.scale[column])
                moved[k * dimension + column] = Float(weight * Double(target.scale[column]) / sourceScale)
                shift += weight * (Double(target.mean[column]) - Double(source.mean[column])) / sourceScale
            }
            movedBias[k] = Float(Double(bias[k]) + shift)
        }
        return LogisticRegressionModel(classCount: classCount, dimension: dimension, weights: moved, bias: movedBias)
    }

    /// The equivalent model on raw features, for a model trained on `standardizer.apply(raw)`:
    /// `W' = W / scale` (per column) and `b' = b − W' · mean`, so `W' x + b' = W ((x − mean) / scale) + b`.
    public func foldingStandardization(_ standardizer: Standardizer) -> LogisticRegressionModel {
        precondition(standardizer.dimension == dimension, "LogisticRegressionModel: standardizer dimension differs")
        var folded = weights
        var foldedBias = bias
        for k in 0..<classCount {
            var shift = 0.0
            for column in 0..<dimension {
                let weight = Double(weights[k * dimension + column]) / Double(standardizer.scale[column])
                folded[k * dimension + column] = Float(weight)
                shift += weight * Double(standardizer.mean[column])
            }
            foldedBias[k] = Float(Double(bias[k]) - shift)
        }
        return LogisticRegressionModel(classCount: classCount, dimension: dimension, weights: folded, bias: foldedBias)
    }
}

/// What a training run produced.
public struct TrainingOutcome: Sendable {
    /// The trained model.
    public var model: LogisticRegressionModel
    /// L-BFGS iterations taken.
    public var iterations: Int
    /// The objective `Σ w_i · loss_i + (l2 / 2) · ‖W‖²` at the returned model.
    public var finalLoss: Double
    /// Whether a tolerance was met (false after `maxIterations` or a stalled line search with a large gradient).
    public var converged: Bool

    /// An outcome from its parts (a head trained some other way, such as by fine-tuning, reports its own).
    public init(model: LogisticRegressionModel, iterations: Int, finalLoss: Double, converged: Bool) {
        self.model = model
        self.iterations = iterations
        self.finalLoss = finalLoss
        self.converged = converged
    }
}

/// Trains `LogisticRegressionModel`s full-batch with L-BFGS.
public enum LogisticRegressionTrainer {
    /// Minimises `Σ_i w_i · (−log softmax(W x_i + b)[y_i]) + (l2 / 2) · ‖W‖²` (bias not penalised) over `W, b`,
    /// where `w_i` follow `settings.classWeighting`. This equals scikit-learn's multinomial
    /// `LogisticRegression(C = 1 / l2)` up to a positive factor, so the minimiser is the same (for ≥ 3 classes;
    /// with 2 classes scikit-learn fits a single logit, a different parameterisation).
    ///
    /// `features` `[count, dimension]` should be standardised (see `Standardizer`): the penalty treats every
    /// dimension alike. Training starts from `initialModel` if given (a warm start), otherwise from zeros.
    /// The result depends only on the inputs: same inputs, bitwise-equal weights.
    public static func train(
        features: [Float], labels: [Int], count: Int, dimension: Int, classCount: Int,
        settings: LogisticRegressionSettings,
        initialModel: LogisticRegressionModel? = nil
    ) -> TrainingOutcome {
        let weights = sampleWeights(labels: labels, classCount: classCount, weighting: settings.classWeighting)
        let objective = LogisticObjective(
            features: features, labels: labels, sampleWeights: weights,
            count: count, dimension: dimension, classCount: classCount, l2: settings.l2)
        var start = [Double](repeating: 0, count: objective.parameterCount)
        if let initialModel {
            precondition(
                initialModel.classCount == classCount && initialModel.dimension == dimension,
                "LogisticRegressionTrainer: initial model has the wrong shape")
            start = initialModel.weights.map { Double($0) } + initialModel.bias.map { Double($0) }
        }
        let optimizer = LBFGS(
            memory: 10, maxIterations: settings.maxIterations,
            gradientTolerance: settings.tolerance * max(1, objective.totalWeight),
            relativeLossTolerance: relativeLossTolerance)
        let result = optimizer.minimize(LogisticLineObjective(objective), from: start)
        // The optimiser's loss comes from logits moved step by step; report one computed afresh.
        var gradient: [Double] = []
        let finalLoss = objective.evaluate(result.parameters, gradient: &gradient)
        let weightCount = classCount * dimension
        let model = LogisticRegressionModel(
            classCount: classCount, dimension: dimension,
            weights: result.parameters[0..<weightCount].map { Float($0) },
            bias: result.parameters[weightCount...].map { Float($0) })
        let converged: Bool
        switch result.stopReason {
        case .gradientSmall, .lossChangeSmall: converged = true
        case .iterationLimit, .lineSearchFailed: converged = false
        }
        return TrainingOutcome(model: model, iterations: result.iterations, finalLoss: finalLoss, converged: converged)
    }

    /// Relative decrease of the objective in one step below which training stops: about 100 Double roundings
    /// of a sum over samples, so it only ends runs whose steps no longer change the objective at all.
    static let relativeLossTolerance = 1e-13

    /// Per-sample weights for `weighting`, `[labels.count]`.
    public static func sampleWeights(labels: [Int], classCount: Int, weighting: ClassWeighting) -> [Double] {
        switch weighting {
        case .uniform:
            return [Double](repeating: 1, count: labels.count)
        case .balanced:
            var classCounts = [Int](repeating: 0, count: classCount)
            for label in labels { classCounts[label] += 1 }
            return labels.map { Double(labels.count) / (Double(classCount) * Double(classCounts[$0])) }
        }
    }
}
