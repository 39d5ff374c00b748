import Foundation
import LogisticHead
import XCTest
import _TestSupport

/// Gaussian samples for synthetic problems (Box–Muller on the seeded generator).
struct GaussianSampler {
    var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func next() -> Double {
        let u = Double.random(in: Double.ulpOfOne..<1, using: &generator)
        let v = Double.random(in: 0..<1, using: &generator)
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}

final class L2SearchTests: XCTestCase {
    /// Two classes whose signal is the difference of two features that share a large nuisance: `x0 = s + 3n`,
    /// `x1 = 3n + 0.3e`, `s = ±1`. Nearly separable along `x0 − x1`, but the class means differ only in `x0`, so a
    /// heavily regularised model (which points along the mean difference) is poor and the weakest penalty is best.
    /// Ten pure-noise features ride along.
    private func nuisanceProblem(count: Int, seed: UInt64) -> (features: [Float], labels: [Int]) {
        var sampler = GaussianSampler(seed: seed)
        var features: [Float] = [], labels: [Int] = []
        for sample in 0..<count {
            let label = sample % 2
            let nuisance = 3 * sampler.next()
            features.append(Float((label == 1 ? 1 : -1) + nuisance))
            features.append(Float(nuisance + 0.3 * sampler.next()))
            for _ in 0..<10 { features.append(Float(sampler.next())) }
            labels.append(label)
        }
        return (features, labels)
    }

    /// Two classes in 160 dimensions with isotropic noise and a weak shift of the mean (±0.15) in the first 40,
    /// seen through 200 images: the class-mean direction (the strong-penalty limit) is the Bayes rule's, while a
    /// weak penalty also estimates the noise's covariance from barely more images than dimensions and fits it.
    private func isotropicProblem(count: Int, seed: UInt64) -> (features: [Float], labels: [Int]) {
        var sampler = GaussianSampler(seed: seed)
        var features: [Float] = [], labels: [Int] = []
        for sample in 0..<count {
            let label = sample % 2
            for column in 0..<160 {
                features.append(Float((column < 40 ? (label == 1 ? 0.15 : -0.15) : 0) + sampler.next()))
            }
            labels.append(label)
        }
        return (features, labels)
    }

    /// Accuracy on a large independent sample of a model fitted on all of `training` with `l2`: the population
    /// truth the selection should find.
    private func populationAccuracy(
        l2: Double, training: (features: [Float], labels: [Int]),
        population: (features: [Float], labels: [Int]), dimension: Int
    ) -> Double {
        let standardizer = Standardizer(fitting: training.features, count: training.labels.count, dimension: dimension)
        let outcome = LogisticRegressionTrainer.train(
            features: standardizer.apply(training.features, count: training.labels.count), labels: training.labels,
            count: training.labels.count, dimension: dimension, classCount: 2, settings: .init(l2: l2))
        let predictions = outcome.model.predictions(
            standardizer.apply(population.features, count: population.labels.count),
            count: population.labels.count)
        return Double(zip(predictions, population.labels).filter { $0 == $1 }.count) / Double(population.labels.count)
    }

    func testCrossValidationPicksTheWeakPenaltyWhenTheClassMeansMislead() {
        let grid = [1e4, 1e2, 1, 1e-2]
        let training = nuisanceProblem(count: 300, seed: 11)
        let population = nuisanceProblem(count: 20_000, seed: 12)
        let truth = grid.map { populationAccuracy(l2: $0, training: training, population: population, dimension: 12) }
        // The premise: the weakest penalty is clearly best on new data.
        XCTAssertEqual(truth.firstIndex(of: truth.max()!), 3, "population accuracies \(truth)")
        XCTAssertGreaterThan(truth[3] - truth[0], 0.15, "population accuracies \(truth)")

        let selection = L2Search.select(
            grid: grid, features: training.features, labels: training.labels, count: 300,
            dimension: 12, classCount: 2, plan: .crossValidation(folds: 5, repeats: 2),
            seed: 3, settings: .init(l2: 1), threads: 2)
        XCTAssertEqual(selection.l2, 1e-2, "candidates \(selection.candidates)")
        XCTAssertEqual(selection.candidates.map(\.l2), grid)
        XCTAssertEqual(selection.heldOutCount, 300)
        XCTAssertEqual(selection.heldOutSamples.count, 600, "every image held out once per repeat")
        XCTAssertEqual(Array(selection.heldOutSamples[0..<300]), Array(0..<300))
        XCTAssertEqual(Array(selection.heldOutSamples[300...]), Array(0..<300))
    }

    func testCrossValidationPicksAStrongPenaltyForBarelyMoreImagesThanDimensions() {
        let grid = [1e4, 1e2, 1, 1e-2]
        let training = isotropicProblem(count: 200, seed: 21)
        let population = isotropicProblem(count: 10_000, seed: 22)
        let truth = grid.map { populationAccuracy(l2: $0, training: training, population: population, dimension: 160) }
        // The premise: the strong end beats the weak end on new data.
        XCTAssertGreaterThan(max(truth[0], truth[1]) - truth[3], 0.04, "population accuracies \(truth)")

        let selection = L2Search.select(
            grid: grid, features: training.features, labels: training.labels, count: 200,
            dimension: 160, classCount: 2, plan: .crossValidation(folds: 5, repeats: 5),
            seed: 3, settings: .init(l2: 1), threads: 2)
        XCTAssertGreaterThanOrEqual(selection.l2, 1e2, "candidates \(selection.candidates), population \(truth)")
        let chosen = grid.firstIndex(of: selection.l2)!
        XCTAssertGreaterThan(truth[chosen], truth.max()! - 0.02, "the chosen strength is (nearly) the population's best")
    }

    func testSelectionIsDeterministicWhateverTheThreadCount() {
        let training = nuisanceProblem(count: 120, seed: 5)
        func run(threads: Int) -> L2Selection {
            L2Search.select(
                grid: [10, 0.1, 1000], features: training.features, labels: training.labels, count: 120,
                dimension: 12, classCount: 2, plan: .crossValidation(folds: 5, repeats: 3), seed: 9,
                settings: .init(l2: 1), threads: threads)
        }
        let one = run(threads: 1), two = run(threads: 2)
        XCTAssertEqual(one.candidates, two.candidates)
        XCTAssertEqual(one.heldOutLogits, two.heldOutLogits)
        XCTAssertEqual(one.heldOutSamples, two.heldOutSamples)
        XCTAssertEqual(one.l2, two.l2)
    }

    func testDerivedRowsTrainWithTheirOwnerAndAreNeverHeldOut() {
        let count = 37
        let labels = (0..<count).map { $0 % 3 }
        // Two views per sample, listed view by view as a workflow makes them.
        let owners = Array(0..<count) + Array(0..<count)
        for plan in [HeldOutPlan.crossValidation(folds: 5, repeats: 2), .holdOut(fraction: 0.25)] {
            let plain = L2Search.tasks(plan: plan, labels: labels, classCount: 3, seed: 11)
            let withViews = L2Search.tasks(plan: plan, labels: labels, classCount: 3, seed: 11, derivedOwners: owners)
            XCTAssertEqual(plain.count, withViews.count)
            for (task, plainTask) in zip(withViews, plain) {
                // The split of the images is the one made without views.
                XCTAssertEqual(task.heldOut, plainTask.heldOut)
                XCTAssertEqual(task.training.filter { $0 < count }, plainTask.training)
                let trainedImages = Set(plainTask.training)
                XCTAssertTrue(task.heldOut.allSatisfy { $0 < count }, "a view held out")
                let views = task.training.filter { $0 >= count }
                XCTAssertTrue(
                    views.allSatisfy { trainedImages.contains(owners[$0 - count]) },
                    "a view trained on while its image is held out")
                XCTAssertEqual(views.count, 2 * trainedImages.count, "every view of a trained image is trained on")
                XCTAssertTrue(Set(task.heldOut).isDisjoint(with: views.map { owners[$0 - count] }))
            }
        }
    }

    func testCopiesOfHeldOutImagesNeverReachTheirFold() {
        // Pure noise with random labels: nothing is learnable, so held-out accuracy stays near chance (1/2) unless
        // a copy of a held-out image was trained on, in which case a weakly penalised model recalls it (≈ 100 %).
        var sampler = GaussianSampler(seed: 21)
        let count = 60, dimension = 40
        let features = (0..<(count * dimension)).map { _ in Float(sampler.next()) }
        let labels = (0..<count).map { _ in sampler.next() > 0 ? 1 : 0 }
        let derived = DerivedRows(features: features + features, owners: Array(0..<count) + Array(0..<count))
        for plan in [HeldOutPlan.crossValidation(folds: 5, repeats: 1), .holdOut(fraction: 0.3)] {
            let selection = L2Search.select(
                grid: [1e-4, 1e-2], features: features, labels: labels, count: count,
                dimension: dimension, classCount: 2, plan: plan, seed: 3,
                settings: .init(l2: 1), derived: derived)
            XCTAssertLessThan(selection.candidates.map(\.accuracy).max()!, 0.8, "\(plan)")
            XCTAssertTrue(selection.heldOutSamples.allSatisfy { $0 < count })
        }
    }

    func testHoldOutPlanHoldsOutAStratifiedShare() {
        let training = nuisanceProblem(count: 100, seed: 8)
        let selection = L2Search.select(
            grid: [1, 100], features: training.features, labels: training.labels,
            count: 100, dimension: 12, classCount: 2, plan: .holdOut(fraction: 0.2),
            seed: 4, settings: .init(l2: 1))
        XCTAssertEqual(selection.heldOutCount, 20)
        XCTAssertEqual(selection.heldOutSamples.count, 20)
        XCTAssertEqual(selection.heldOutSamples, selection.heldOutSamples.sorted())
        XCTAssertEqual(selection.heldOutSamples.filter { training.labels[$0] == 1 }.count, 10, "stratified")
        XCTAssertEqual(selection.heldOutLogits.count, 40)
    }

    func testNearTiesGoToTheLowerLogLossThenToTheStrongerPenalty() {
        // 200 images: one image is 0.005, half a standard error at 90 % is 0.0106.
        XCTAssertEqual(L2Search.nearTieTolerance(accuracy: 0.9, count: 200), 0.5 * (0.09 / 200).squareRoot(), accuracy: 1e-15)
        XCTAssertEqual(L2Search.nearTieTolerance(accuracy: 1, count: 200), 0.005, accuracy: 1e-15)
        let candidates = [
            L2Candidate(l2: 100, accuracy: 0.880, logLoss: 0.30),  // outside the tie (0.905 − 0.0104 = 0.8946)
            L2Candidate(l2: 10, accuracy: 0.900, logLoss: 0.25),  // inside, lowest log-loss: wins
            L2Candidate(l2: 1, accuracy: 0.905, logLoss: 0.28),  // best accuracy
            L2Candidate(l2: 0.1, accuracy: 0.895, logLoss: 0.40),
        ]
        XCTAssertEqual(L2Search.choose(candidates, heldOutCount: 200), 1)
        let equalLoss = [L2Candidate(l2: 1, accuracy: 0.9, logLoss: 0.3), L2Candidate(l2: 10, accuracy: 0.9, logLoss: 0.3)]
        XCTAssertEqual(L2Search.choose(equalLoss, heldOutCount: 200), 1, "exact ties go to the larger l2")
        // A clear accuracy winner beats a lower log-loss.
        let clear = [L2Candidate(l2: 1, accuracy: 0.95, logLoss: 0.5), L2Candidate(l2: 10, accuracy: 0.85, logLoss: 0.2)]
        XCTAssertEqual(L2Search.choose(clear, heldOutCount: 200), 0)
    }

    func testSeparateValidationSetReturnsTheModelFittedOnAllTrainingImages() {
        let training = nuisanceProblem(count: 120, seed: 5)
        let validation = nuisanceProblem(count: 40, seed: 6)
        let selection = L2Search.select(
            grid: [100, 1, 0.01],
            trainingFeatures: training.features, trainingLabels: training.labels,
            trainingCount: 120, validationFeatures: validation.features,
            validationLabels: validation.labels, validationCount: 40,
            dimension: 12, classCount: 2, settings: .init(l2: 1, tolerance: 1e-9))
        let fitted = try! XCTUnwrap(selection.fittedOnAll)
        let cold = LogisticRegressionTrainer.train(
            features: fitted.standardizer.apply(training.features, count: 120), labels: training.labels, count: 120,
            dimension: 12, classCount: 2, settings: .init(l2: selection.l2, tolerance: 1e-9))
        // Strictly convex: the warm-started chain and a cold fit reach the same optimum, up to the tolerance.
        assertClose(fitted.outcome.model.weights, cold.model.weights, absolute: 1e-3)
        XCTAssertEqual(selection.heldOutSamples, Array(0..<40))
        let logits = fitted.outcome.model.logits(fitted.standardizer.apply(validation.features, count: 40), count: 40)
        XCTAssertEqual(selection.heldOutLogits, logits)
    }
}
