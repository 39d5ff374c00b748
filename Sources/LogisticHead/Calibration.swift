import Foundation
import TensorCore

/// Softmax of logits divided by a temperature, the one place where logits become probabilities.
public enum Softmax {
    /// Probabilities `[count, classCount]` of `softmax(logits / temperature)` per row, computed in Double.
    public static func probabilities(logits: [Float], count: Int, classCount: Int, temperature: Double = 1) -> [Float] {
        precondition(logits.count == count * classCount, "Softmax: logits must hold count × classCount values")
        precondition(temperature > 0 && temperature.isFinite, "Softmax: temperature must be positive")
        var result = [Float](repeating: 0, count: logits.count)
        var exponentials = [Double](repeating: 0, count: classCount)
        for row in 0..<count {
            let start = row * classCount
            var largest = -Double.infinity
            for k in 0..<classCount { largest = max(largest, Double(logits[start + k]) / temperature) }
            var sum = 0.0
            for k in 0..<classCount {
                exponentials[k] = exp(Double(logits[start + k]) / temperature - largest)
                sum += exponentials[k]
            }
            for k in 0..<classCount { result[start + k] = Float(exponentials[k] / sum) }
        }
        return result
    }
}

/// Temperature scaling (Guo et al., "On Calibration of Modern Neural Networks", 2017): one number `T` that divides
/// every logit, fitted to minimise the negative log-likelihood of held-out predictions. It changes no prediction,
/// only how sure each one claims to be.
public enum TemperatureScaling {
    /// The temperatures considered. Beyond them the held-out data say more about their own size than about the
    /// model (a held-out set without errors pulls `T` toward 0).
    public static let range: ClosedRange<Double> = 0.05...20

    /// Mean `−log softmax(z / T)[y]` over the rows of `logits` `[labels.count, classCount]`.
    public static func negativeLogLikelihood(logits: [Float], labels: [Int], classCount: Int, temperature: Double) -> Double {
        guard !labels.isEmpty else { return 0 }
        let inverse = 1 / temperature
        var total = 0.0
        for (row, label) in labels.enumerated() {
            let start = row * classCount
            var largest = -Double.infinity
            for k in 0..<classCount { largest = max(largest, inverse * Double(logits[start + k])) }
            var sum = 0.0
            for k in 0..<classCount { sum += exp(inverse * Double(logits[start + k]) - largest) }
            total += largest + log(sum) - inverse * Double(logits[start + label])
        }
        return total / Double(labels.count)
    }

    /// The temperature minimising `negativeLogLikelihood` within `range`; 1 when the held-out predictions are all
    /// right or all wrong (then the likelihood keeps improving toward an end of the range and says nothing useful).
    ///
    /// With `β = 1/T` the negative log-likelihood is convex in `β` (a log-sum-exp of linear functions minus a linear
    /// term), so its derivative `mean_i (E_softmax(βz_i)[z_i] − z_iy)` is increasing, and bisection on `log β`
    /// finds its zero to full precision in a fixed number of steps: deterministic and without step-size tuning.
    public static func fit(logits: [Float], labels: [Int], classCount: Int) -> Double {
        precondition(logits.count == labels.count * classCount, "TemperatureScaling: logits must hold labels.count × classCount values")
        var correct = 0
        for (row, label) in labels.enumerated() where logits[(row * classCount)..<((row + 1) * classCount)].indexOfMaximum == label { correct += 1 }
        guard correct > 0, correct < labels.count else { return 1 }
        var low = log(1 / range.upperBound), high = log(1 / range.lowerBound)
        if slope(logits: logits, labels: labels, classCount: classCount, inverseTemperature: exp(low)) >= 0 {
            return range.upperBound
        }
        if slope(logits: logits, labels: labels, classCount: classCount, inverseTemperature: exp(high)) <= 0 {
            return range.lowerBound
        }
        for _ in 0..<100 {
            let middle = 0.5 * (low + high)
            if slope(logits: logits, labels: labels, classCount: classCount, inverseTemperature: exp(middle)) > 0 {
                high = middle
            } else {
                low = middle
            }
        }
        return 1 / exp(0.5 * (low + high))
    }

    /// `d/dβ` of the mean negative log-likelihood at `β`.
    private static func slope(logits: [Float], labels: [Int], classCount: Int, inverseTemperature beta: Double) -> Double {
        var total = 0.0
        for (row, label) in labels.enumerated() {
            let start = row * classCount
            var largest = -Double.infinity
            for k in 0..<classCount { largest = max(largest, beta * Double(logits[start + k])) }
            var sum = 0.0, weighted = 0.0
            for k in 0..<classCount {
                let weight = exp(beta * Double(logits[start + k]) - largest)
                sum += weight
                weighted += weight * Double(logits[start + k])
            }
            total += weighted / sum - Double(logits[start + label])
        }
        return total / Double(labels.count)
    }
}

/// Expected calibration error: how far stated confidence is from the accuracy it comes with.
public enum CalibrationError {
    /// Bins of the usual definition (Guo et al. 2017).
    public static let binCount = 15

    /// `Σ_b (n_b / N) · |accuracy_b − mean confidence_b|` over equal-width bins of the top probability, bin `b`
    /// holding confidences in `(b/B, (b+1)/B]` (the first also 0). The prediction is the most probable label, the
    /// first on ties. `probabilities` is `[labels.count, classCount]`; 0 for no samples.
    public static func expected(probabilities: [Float], labels: [Int], classCount: Int, bins: Int = binCount) -> Double {
        precondition(probabilities.count == labels.count * classCount, "CalibrationError: one probability row per label")
        precondition(bins >= 1, "CalibrationError: at least one bin")
        guard !labels.isEmpty else { return 0 }
        var counts = [Int](repeating: 0, count: bins)
        var confidenceSums = [Double](repeating: 0, count: bins)
        var correctCounts = [Int](repeating: 0, count: bins)
        for (row, label) in labels.enumerated() {
            let start = row * classCount
            let best = probabilities[start..<(start + classCount)].indexOfMaximum
            let confidence = Double(probabilities[start + best])
            let bin = min(bins - 1, max(0, Int((confidence * Double(bins)).rounded(.up)) - 1))
            counts[bin] += 1
            confidenceSums[bin] += confidence
            if best == label { correctCounts[bin] += 1 }
        }
        var error = 0.0
        for bin in 0..<bins where counts[bin] > 0 {
            let n = Double(counts[bin])
            error += n / Double(labels.count) * abs(Double(correctCounts[bin]) / n - confidenceSums[bin] / n)
        }
        return error
    }
}
