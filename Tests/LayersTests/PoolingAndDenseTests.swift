import Layers
import XCTest
import _TestSupport

final class PoolingAndDenseTests: XCTestCase {
    func testGlobalAveragePoolMatchesNaiveMean() {
        var random = SeededGenerator(seed: 10)
        let (batch, pixels, channels) = (3, 7 * 5, 11)
        let input = random.floats(batch * pixels * channels)
        var expected = [Float](repeating: 0, count: batch * channels)
        for n in 0..<batch {
            for c in 0..<channels {
                var sum = 0.0
                for p in 0..<pixels { sum += Double(input[(n * pixels + p) * channels + c]) }
                expected[n * channels + c] = Float(sum / Double(pixels))
            }
        }
        assertClose(GlobalAveragePool.forward(input, batch: batch, pixelCount: pixels, channels: channels), expected)
    }

    func testDenseMatchesNaiveProduct() {
        var random = SeededGenerator(seed: 11)
        let (batch, inputs, outputs) = (3, 17, 9)
        let input = random.floats(batch * inputs), weights = random.floats(outputs * inputs), bias = random.floats(outputs)
        var expected = [Float](repeating: 0, count: batch * outputs)
        for n in 0..<batch {
            for o in 0..<outputs {
                var sum = Double(bias[o])
                for i in 0..<inputs { sum += Double(input[n * inputs + i]) * Double(weights[o * inputs + i]) }
                expected[n * outputs + o] = Float(sum)
            }
        }
        let layer = Dense(weights: weights, bias: bias, inputCount: inputs, outputCount: outputs)
        assertClose(layer.forward(input, batch: batch), expected)
    }
}
