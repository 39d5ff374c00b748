/// Per-dimension standardisation `(x − mean) / scale`, fitted on the training features only.
///
/// Layout: features are row-major `[count, dimension]`. `scale` is the population standard deviation
/// (divisor `count`, as scikit-learn's `StandardScaler`). A dimension whose standard deviation is negligible
/// next to its mean (≤ 1e-10 · max(1, |mean|)) gets scale 1, so a constant feature maps to 0 instead of dividing
/// by zero or amplifying rounding noise.
///
/// **Fine-tuning floors the scale at the median standard deviation** (`ScaleFloor.medianDeviation`): a feature
/// that barely varies on the training images (EfficientNet features of a narrow dataset have dozens) would otherwise
/// be divided by its tiny spread, so any later change in it (a fine-tuned backbone moving it) arrives hugely
/// amplified; the fine-tuning prototype diverged on such datasets. Flooring caps every feature's amplification at
/// that of a typical one and leaves the well-spread half untouched. The frozen head keeps scikit-learn's
/// `StandardScaler` (`.none`, the default): its features never move, and the floor cost it 2 of 47 testing images
/// on the photos set (`scripts/accuracy/accuracy-finetune.sh`).
public struct Standardizer: Sendable, Equatable, Codable {
    /// Number of feature dimensions.
    public var dimension: Int
    /// Per-dimension mean, `[dimension]`.
    public var mean: [Float]
    /// Per-dimension divisor, `[dimension]`, never zero.
    public var scale: [Float]

    /// Creates a standardiser from known statistics.
    public init(mean: [Float], scale: [Float]) {
        precondition(mean.count == scale.count, "Standardizer: mean and scale differ in length")
        self.dimension = mean.count
        self.mean = mean
        self.scale = scale
    }

    /// The least a dimension's scale may be.
    public enum ScaleFloor: Sendable, Equatable {
        /// No floor: scikit-learn's `StandardScaler`.
        case none
        /// The median over dimensions of the standard deviations (the lower middle one for an even count).
        case medianDeviation
    }

    /// Fits the mean and population standard deviation of each dimension of `features` (`[count, dimension]`),
    /// each scale then raised to `floor`. Sums run in Double, in row order, so the result does not depend on
    /// anything but the input. With `count == 0` the standardiser is the identity.
    public init(fitting features: [Float], count: Int, dimension: Int, floor: ScaleFloor = .none) {
        precondition(
            count >= 0 && dimension >= 0 && features.count == count * dimension,
            "Standardizer: features must hold count × dimension values")
        var sums = [Double](repeating: 0, count: dimension)
        for row in 0..<count {
            for column in 0..<dimension { sums[column] += Double(features[row * dimension + column]) }
        }
        let means = sums.map { count > 0 ? $0 / Double(count) : 0 }
        // Two passes: the centred sum of squares does not cancel catastrophically like E[x²] − E[x]².
        var squares = [Double](repeating: 0, count: dimension)
        for row in 0..<count {
            for column in 0..<dimension {
                let centred = Double(features[row * dimension + column]) - means[column]
                squares[column] += centred * centred
            }
        }
        var scales = [Float](repeating: 1, count: dimension)
        if count > 0 {
            let deviations = squares.map { ($0 / Double(count)).squareRoot() }
            var least = 0.0
            if floor == .medianDeviation, dimension > 0 { least = deviations.sorted()[(dimension - 1) / 2] }
            for column in 0..<dimension {
                let deviation = max(deviations[column], least)
                if deviation > 1e-10 * max(1, abs(means[column])) { scales[column] = Float(deviation) }
            }
        }
        self.init(mean: means.map { Float($0) }, scale: scales)
    }

    /// Returns `(features − mean) / scale` for `features` laid out `[count, dimension]`.
    public func apply(_ features: [Float], count: Int) -> [Float] {
        precondition(features.count == count * dimension, "Standardizer: features must hold count × dimension values")
        var result = features
        for row in 0..<count {
            for column in 0..<dimension {
                let index = row * dimension + column
                result[index] = (features[index] - mean[column]) / scale[column]
            }
        }
        return result
    }
}
