import XCTest

/// How far an analytic gradient may be from central finite differences: `|analytic − numeric| ≤ absolute +
/// relative·max(|analytic|, |numeric|)` elementwise.
public struct GradientTolerance: Sendable, CustomStringConvertible {
    /// The floor, for gradients near zero.
    public let absolute: Double
    /// The part proportional to the gradient's size.
    public let relative: Double

    /// A tolerance with both parts given.
    public init(absolute: Double, relative: Double) {
        self.absolute = absolute
        self.relative = relative
    }

    /// A double-precision backward pass against central differences of a double-precision forward pass with
    /// step `GradientCheck.step` (1e-6): the truncation error is O(step²·f‴) ≈ 1e-12 and the rounding error
    /// about ε·|loss|/step ≈ 1e-10·|loss|, so 1e-6 leaves room for losses in the hundreds and still catches a
    /// wrong index or a factor off by one part in a million.
    public static let doublePrecision = GradientTolerance(absolute: 1e-6, relative: 1e-6)

    public var description: String { "absolute \(absolute), relative \(relative)" }
}

/// Central finite differences: the independent reference every backward pass is checked against.
public enum GradientCheck {
    /// The default step: small enough that the O(step²) truncation error is negligible in double precision,
    /// large enough that rounding (about 1e-16·|loss|/step) stays far below `GradientTolerance.doublePrecision`.
    public static let step = 1e-6

    /// `(loss(point + step·eᵢ) − loss(point − step·eᵢ)) / (2·step)` for each `i` in `indices`.
    public static func centralDifferences(
        of loss: ([Double]) -> Double, at point: [Double], step: Double = step,
        indices: [Int]
    ) -> [Double] {
        indices.map { index in
            var shifted = point
            shifted[index] = point[index] + step
            let above = loss(shifted)
            shifted[index] = point[index] - step
            let below = loss(shifted)
            return (above - below) / (2 * step)
        }
    }

    /// Up to `limit` indices of `0..<count`, evenly spread and always including the first and the last: enough to
    /// catch a wrong index anywhere while keeping checks of larger tensors fast.
    public static func sampledIndices(count: Int, limit: Int?) -> [Int] {
        guard let limit, count > limit, limit >= 2 else { return Array(0..<count) }
        return (0..<limit).map { $0 * (count - 1) / (limit - 1) }
    }
}

/// Asserts that `analytic` (the gradient of `loss` at `point`, as a backward pass computed it) matches central
/// finite differences of `loss`, at the indices `GradientCheck.sampledIndices` picks (all of them unless
/// `sampling` is given). Checks the counts first; on failure it names the first mismatching index with both
/// values and the largest difference, at the caller's file and line.
public func assertGradientMatchesCentralDifferences(
    _ analytic: [Double], of loss: ([Double]) -> Double, at point: [Double],
    step: Double = GradientCheck.step, tolerance: GradientTolerance = .doublePrecision, sampling limit: Int? = nil,
    _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    guard analytic.count == point.count else {
        XCTFail("gradient has \(analytic.count) values for \(point.count) variables. \(message())", file: file, line: line)
        return
    }
    let indices = GradientCheck.sampledIndices(count: point.count, limit: limit)
    let numeric = GradientCheck.centralDifferences(of: loss, at: point, step: step, indices: indices)
    var firstMismatch: (index: Int, analytic: Double, numeric: Double)?
    var largestDifference = 0.0
    for (position, index) in indices.enumerated() {
        let difference = abs(analytic[index] - numeric[position])
        let allowed = tolerance.absolute + tolerance.relative * max(abs(analytic[index]), abs(numeric[position]))
        if !(difference <= allowed), firstMismatch == nil { firstMismatch = (index, analytic[index], numeric[position]) }
        if difference > largestDifference || difference.isNaN { largestDifference = difference }
    }
    if let mismatch = firstMismatch {
        XCTFail(
            "gradient [\(mismatch.index)]: backward \(mismatch.analytic), central difference \(mismatch.numeric); "
                + "largest difference \(largestDifference) over \(indices.count) checked (tolerance \(tolerance)). \(message())",
            file: file, line: line)
    }
}
