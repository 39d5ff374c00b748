import TrainableLayers
import XCTest
import _TestSupport

extension SeededGenerator {
    /// A tensor of `shape` with values uniform in `range`.
    mutating func tensor(_ shape: [Int], in range: ClosedRange<Float> = -1...1) -> Tensor<Float> {
        Tensor(shape: shape, storage: floats(shape.reduce(1, *), in: range))
    }

    /// A tensor whose values are at least `margin` away from ReLU6's corners at 0 and 6 (signs mixed), so central
    /// differences never straddle a kink.
    mutating func tensorAwayFromKinks(_ shape: [Int], margin: Float = 0.05) -> Tensor<Float> {
        Tensor(
            shape: shape,
            storage: (0..<shape.reduce(1, *)).map { _ in
                switch Int.random(in: 0..<3, using: &self) {
                case 0: return Float.random(in: (-2)...(-margin), using: &self)
                case 1: return Float.random(in: margin...(6 - margin), using: &self)
                default: return Float.random(in: (6 + margin)...8, using: &self)
                }
            })
    }
}

/// `Σ gradient ⊙ output`: a scalar whose gradient with respect to `output` is `gradient`, so a layer's backward
/// pass fed `gradient` must return this scalar's gradient with respect to the layer's inputs and parameters.
func projected(_ output: Tensor<Double>, onto gradient: Tensor<Double>) -> Double {
    precondition(output.shape == gradient.shape, "projected: shapes \(output.shape) and \(gradient.shape)")
    var sum = 0.0
    for index in 0..<output.count { sum += output.storage[index] * gradient.storage[index] }
    return sum
}

/// Checks a double-precision backward pass against central differences, for the input and for each parameter
/// (given by key path with the gradient the backward pass returned for it). The scalar checked is
/// `Σ outputGradient ⊙ forward(layer, input)`.
func assertLayerGradients<Layer>(
    _ layer: Layer, input: Tensor<Double>, outputGradient: Tensor<Double>,
    forward: (Layer, Tensor<Double>) -> Tensor<Double>,
    inputGradient: Tensor<Double>?,
    parameters: [(name: String, path: WritableKeyPath<Layer, Tensor<Double>>, gradient: Tensor<Double>)],
    sampling limit: Int? = nil, _ message: String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    if let inputGradient {
        XCTAssertEqual(inputGradient.shape, input.shape, "input gradient shape. \(message)", file: file, line: line)
        assertGradientMatchesCentralDifferences(
            inputGradient.scalars,
            of: { projected(forward(layer, Tensor(shape: input.shape, storage: $0)), onto: outputGradient) },
            at: input.scalars, sampling: limit, "input gradient. \(message)", file: file, line: line)
    }
    for parameter in parameters {
        let value = layer[keyPath: parameter.path]
        XCTAssertEqual(parameter.gradient.shape, value.shape, "\(parameter.name) gradient shape. \(message)", file: file, line: line)
        assertGradientMatchesCentralDifferences(
            parameter.gradient.scalars,
            of: { values in
                var changed = layer
                changed[keyPath: parameter.path] = Tensor(shape: value.shape, storage: values)
                return projected(forward(changed, input), onto: outputGradient)
            },
            at: value.scalars, sampling: limit, "\(parameter.name) gradient. \(message)", file: file, line: line)
    }
}

/// Float32 fast results against their reference (shapes first, then values within the kernel tolerances).
func assertMatchesReference(
    _ actual: Tensor<Float>?, _ expected: Tensor<Float>?, _ message: String,
    file: StaticString = #filePath, line: UInt = #line
) {
    guard let actual, let expected else {
        XCTAssertTrue(actual == nil && expected == nil, "one side is missing. \(message)", file: file, line: line)
        return
    }
    XCTAssertEqual(actual.shape, expected.shape, "shape. \(message)", file: file, line: line)
    assertClose(
        actual.scalars, expected.scalars, absolute: Tolerance.kernelVersusReference,
        relative: Tolerance.backwardVersusReferenceRelative, message, file: file, line: line)
}
