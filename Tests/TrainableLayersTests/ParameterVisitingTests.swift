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
            var values = parameter.scalars
            for index in values.indices { values[index] += shift[index] }
            parameter = Tensor(shape: parameter.shape, storage: values)
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

    func testASoupIsEachParametersMeanOverItsMembers() throws {
        let start = try TrainableNetworkTests.smallClassifier(trainableFrom: .block(14))
        let members = [trained(start, seed: 1), trained(start, seed: 2), trained(start, seed: 3)]
        XCTAssertEqual(TrainableClassifier.averaged([members[0]]).parameters, members[0].parameters, "one member is itself")
        let soup = TrainableClassifier.averaged(members).parameters
        let each = members.map(\.parameters)
        XCTAssertEqual(Set(soup.keys), Set(start.parameters.keys))
        for (name, tensor) in soup {
            // The exact mean, rounded once to Float (a plain loop: closures per element cost seconds unoptimised).
            let (a, b, c) = (each[0][name]!.scalars, each[1][name]!.scalars, each[2][name]!.scalars)
            var means = [Float](repeating: 0, count: a.count)
            for index in means.indices { means[index] = Float((Double(a[index]) + Double(b[index]) + Double(c[index])) / 3) }
            XCTAssertEqual(tensor.scalars, means, name)
        }
        // Two members: the midpoint WiSE-FT's mix at 0.5 gives, to a rounding.
        let pair = TrainableClassifier.averaged(Array(members.prefix(2))).parameters
        let half = members[0].interpolated(toward: members[1], weight: 0.5).parameters
        for (name, tensor) in pair {
            let worst = zip(tensor.scalars, half[name]!.scalars).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? 0
            XCTAssertLessThan(worst, 1e-6, name)
        }
        // The same members in the same order give the same bits.
        XCTAssertEqual(TrainableClassifier.averaged(members).parameters, soup)
    }
}
