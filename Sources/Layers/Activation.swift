/// The pointwise non-linearity a layer applies after adding its bias.
public enum Activation: Sendable, Equatable {
    /// The identity (used after the project convolution of an inverted-residual block).
    case none
    /// `min(max(x, 0), 6)`, EfficientNet-Lite's only activation (it quantises well, hence no swish).
    case relu6

    /// Applies the activation to one value.
    @inlinable
    public func apply(_ value: Float) -> Float {
        switch self {
        case .none: return value
        case .relu6: return Swift.min(Swift.max(value, 0), 6)
        }
    }
}

/// The pass that follows a matrix product or a convolution sum: `row = activation(row + bias) + residual`.
///
/// Shapes: `values [rows, columns]` row-major, `bias [columns]`, `residual [rows, columns]` (or nil).
/// Each case gets its own loop so the compiler vectorises it without per-element branches; running it on
/// a tile right after that tile's product keeps the data in cache (one memory pass instead of three).
@inlinable
public func applyEpilogue(
    _ values: UnsafeMutablePointer<Float>, rows: Int, columns: Int,
    bias: UnsafePointer<Float>, activation: Activation, residual: UnsafePointer<Float>?
) {
    for row in 0..<rows {
        let line = values + row * columns
        switch (activation, residual) {
        case (.none, nil):
            for column in 0..<columns { line[column] += bias[column] }
        case (.relu6, nil):
            for column in 0..<columns { line[column] = Swift.min(Swift.max(line[column] + bias[column], 0), 6) }
        case (.none, let residual?):
            let skip = residual + row * columns
            for column in 0..<columns { line[column] += bias[column] + skip[column] }
        case (.relu6, let residual?):
            let skip = residual + row * columns
            for column in 0..<columns {
                line[column] = Swift.min(Swift.max(line[column] + bias[column], 0), 6) + skip[column]
            }
        }
    }
}
