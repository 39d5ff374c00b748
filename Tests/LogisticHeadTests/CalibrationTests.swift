import Foundation
import LogisticHead
import XCTest

final class CalibrationTests: XCTestCase {
    /// Logits drawn at random and labels drawn from `softmax(logits / temperature)`: fitting must give back the
    /// temperature, whichever side of 1 it lies.
    func testTemperatureFittingRecoversAKnownTemperature() {
        for trueTemperature in [0.5, 1.0, 2.5] {
            var sampler = GaussianSampler(seed: UInt64(trueTemperature * 100))
            let count = 20_000, classCount = 4
            var logits: [Float] = [], labels: [Int] = []
            for _ in 0..<count {
                let row = (0..<classCount).map { _ in 2 * sampler.next() }
                logits += row.map(Float.init)
                let weights = row.map { exp($0 / trueTemperature) }
                var draw = Double.random(in: 0..<weights.reduce(0, +), using: &sampler.generator)
                var label = classCount - 1
                for (index, weight) in weights.enumerated() {
                    if draw < weight { label = index; break }
                    draw -= weight
                }
                labels.append(label)
            }
            let fitted = TemperatureScaling.fit(logits: logits, labels: labels, classCount: classCount)
            XCTAssertEqual(fitted, trueTemperature, accuracy: 0.05 * trueTemperature, "true temperature \(trueTemperature)")
            // It is the minimum: nearby temperatures give a higher negative log-likelihood.
            let best = TemperatureScaling.negativeLogLikelihood(logits: logits, labels: labels, classCount: classCount, temperature: fitted)
            for factor in [0.97, 1.03] {
                XCTAssertGreaterThan(
                    TemperatureScaling.negativeLogLikelihood(
                        logits: logits, labels: labels, classCount: classCount,
                        temperature: fitted * factor), best)
            }
        }
    }

    func testTemperatureIsOneWithoutBothRightAndWrongPredictions() {
        // All right: the likelihood would push T to 0; the fit declines.
        XCTAssertEqual(TemperatureScaling.fit(logits: [2, 0, 0, 3], labels: [0, 1], classCount: 2), 1)
        XCTAssertEqual(TemperatureScaling.fit(logits: [], labels: [], classCount: 3), 1)
    }

    func testSoftmaxWithTemperature() {
        let probabilities = Softmax.probabilities(logits: [2, 0, log(3)], count: 1, classCount: 3, temperature: 2)
        // exp(1), exp(0), exp(log(3)/2) = e, 1, √3.
        let total = exp(1.0) + 1 + 3.0.squareRoot()
        XCTAssertEqual(Double(probabilities[0]), exp(1.0) / total, accuracy: 1e-6)
        XCTAssertEqual(Double(probabilities[1]), 1 / total, accuracy: 1e-6)
        XCTAssertEqual(Double(probabilities[2]), 3.0.squareRoot() / total, accuracy: 1e-6)
    }

    func testExpectedCalibrationErrorByHand() {
        // Five predictions over 3 classes (top probability, right?):
        //   0.9 right, 0.9 wrong  -> bin (0.8667, 0.9333]: accuracy 0.5, confidence 0.9, weight 2/5
        //   0.6 right, 0.58 right -> bin (0.5333, 0.6]:     accuracy 1,   confidence 0.59, weight 2/5
        //   0.4 wrong             -> bin (0.3333, 0.4]:     accuracy 0,   confidence 0.4, weight 1/5
        // ECE = 0.4 · 0.4 + 0.4 · 0.41 + 0.2 · 0.4 = 0.404
        let probabilities: [Float] = [0.9, 0.05, 0.05, 0.05, 0.9, 0.05, 0.6, 0.3, 0.1, 0.21, 0.58, 0.21, 0.4, 0.35, 0.25]
        let labels = [0, 0, 0, 1, 2]
        XCTAssertEqual(CalibrationError.expected(probabilities: probabilities, labels: labels, classCount: 3), 0.404, accuracy: 1e-6)
        XCTAssertEqual(CalibrationError.expected(probabilities: [], labels: [], classCount: 3), 0)
        // Perfect confidence on right answers is perfectly calibrated.
        XCTAssertEqual(CalibrationError.expected(probabilities: [1, 0, 0, 1], labels: [0, 1], classCount: 2), 0)
    }
}
