import Foundation
import LogisticHead
import XCTest
import _TestSupport

/// Compares against `scripts/fixtures/make-training-fixtures.py` (scikit-learn `StandardScaler` and multinomial
/// `LogisticRegression(C = 1 / l2)`, lbfgs, tol 1e-10).
final class ScikitLearnGoldenTests: XCTestCase {
    /// Coefficients: both solvers stop near the same optimum; our Float32 products leave ~1e-5 of noise.
    private let coefficientTolerance: Float = 1e-3
    /// Probabilities, as the task demands.
    private let probabilityTolerance: Float = 1e-4

    private struct Case: Decodable {
        var count: Int
        var dimension: Int
        var classCount: Int
        var l2: Double
        var classWeighting: String
        var features: [Float]
        var labels: [Int]
        var mean: [Double]
        var scale: [Double]
        var coefficients: [Double]
        var intercepts: [Double]
        var probabilities: [Double]
    }

    private func load(_ name: String) throws -> Case {
        let url = try XCTUnwrap(
            Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"),
            "missing fixture \(name).json: run scripts/fixtures/make-training-fixtures.py")
        return try JSONDecoder().decode(Case.self, from: Data(contentsOf: url))
    }

    private func check(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let golden = try load(name)
        // scikit-learn's StandardScaler has no floor.
        let standardizer = Standardizer(fitting: golden.features, count: golden.count, dimension: golden.dimension, floor: .none)
        assertClose(
            standardizer.mean, golden.mean.map { Float($0) }, absolute: 1e-5, relative: 1e-6,
            "mean", file: file, line: line)
        assertClose(
            standardizer.scale, golden.scale.map { Float($0) }, absolute: 1e-5, relative: 1e-6,
            "scale", file: file, line: line)
        let features = standardizer.apply(golden.features, count: golden.count)
        let settings = LogisticRegressionSettings(
            l2: golden.l2, classWeighting: try XCTUnwrap(ClassWeighting(rawValue: golden.classWeighting)))
        let outcome = LogisticRegressionTrainer.train(
            features: features, labels: golden.labels, count: golden.count,
            dimension: golden.dimension, classCount: golden.classCount,
            settings: settings)
        XCTAssertTrue(outcome.converged, "did not converge in \(outcome.iterations) iterations", file: file, line: line)
        assertClose(
            outcome.model.weights, golden.coefficients.map { Float($0) }, absolute: coefficientTolerance,
            "coefficients", file: file, line: line)
        // The softmax intercepts are fixed only up to a common shift; both sides keep their sum at zero, but
        // compare them centred so that convention is not what is tested.
        let ours = outcome.model.bias.map { Double($0) }
        let oursCentred = ours.map { $0 - ours.reduce(0, +) / Double(ours.count) }
        let goldenCentred = golden.intercepts.map { $0 - golden.intercepts.reduce(0, +) / Double(golden.intercepts.count) }
        assertClose(
            oursCentred.map { Float($0) }, goldenCentred.map { Float($0) }, absolute: coefficientTolerance,
            "intercepts", file: file, line: line)
        assertClose(
            outcome.model.probabilities(features, count: golden.count), golden.probabilities.map { Float($0) },
            absolute: probabilityTolerance, "probabilities", file: file, line: line)
    }

    func testUniformWeights() throws { try check("logistic-uniform") }
    func testBalancedWeights() throws { try check("logistic-balanced") }
    func testWeakPenalty() throws { try check("logistic-weak-penalty") }
}
