import TensorCore
import TrainableLayers
import XCTest
import _TestSupport

/// The parameter visitor sees what the optimizer's `update` sees, and weight-space mixing (WiSE-FT) is the
/// element-wise line between two classifiers.
final class ParameterVisitingTests: XCTestCase {
    /// The same classifier with every parameter moved by a seeded random amount, as training would.
    private func trained(_ start: TrainableClassifier, seed: UInt64) -> TrainableClassifier {
        var random = SeededGenerator(seed: seed)
        var moved = start
        moved.visitParameters { _, parameter in
            let shift = random.floats(parameter.scalars.count, in: -0.5...0.5)
            parameter = Tensor(shape: parameter.shape, storage: zip(parameter.scalars, shift).map(+))
        }
        return moved
    }

    func testTheVisitorNamesWhatTheOptimizerUpdates() throws {
        let model = try TrainableNetworkTests.smallClassifier(trainableFrom: .block(14))
        var random = SeededGenerator(seed: 3)
        let input = random.tensor([1] + model.backbone.inputItemShape)
        let gradients = model.lossAndGradients(input, labels: [1]).gradients
        var updated: [String: [Int]] = [:]
        var copy = model
        copy.update(with: gradients) { name, parameter, _ in updated[name] = parameter.shape }
        XCTAssertEqual(model.parameters.mapValues(\.shape), updated)
        XCTAssertTrue(updated.keys.contains("classifier.weights") && updated.keys.contains("blocks.15.depthwise.weights"))
    }

    func testMixingIsTheLineBetweenTheTwoClassifiers() throws {
        let start = try TrainableNetworkTests.smallClassifier(trainableFrom: .block(14))
        let end = trained(start, seed: 9)
        XCTAssertEqual(start.interpolated(toward: end, weight: 1).parameters, end.parameters)
        XCTAssertEqual(start.interpolated(toward: end, weight: 0).parameters, start.parameters)
        let half = start.interpolated(toward: end, weight: 0.5).parameters
        let from = start.parameters, to = end.parameters
        XCTAssertEqual(Set(half.keys), Set(from.keys))
        for (name, tensor) in half {
            let a = try XCTUnwrap(from[name]).scalars, b = try XCTUnwrap(to[name]).scalars
            // x + 0.5·(y − x) in Float: within a rounding or two of the exact midpoint.
            var worst = 0.0
            for (index, value) in tensor.scalars.enumerated() {
                let midpoint = (Double(a[index]) + Double(b[index])) / 2
                worst = max(worst, abs(Double(value) - midpoint) / max(1, abs(Double(a[index])), abs(Double(b[index]))))
            }
            XCTAssertLessThan(worst, 1e-6, name)
        }
        XCTAssertNotEqual(half["classifier.weights"], from["classifier.weights"])
    }
}
