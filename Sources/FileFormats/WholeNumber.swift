/// Whole numbers made from reals that come from outside (options, files, a video's metadata), checked first.
///
/// `Int(x)` on a `Double` traps (SIGILL, nothing on stderr) when x is not a number or beyond Int's range
/// (|x| ≥ 2^63): `--from 1e18` times a frame rate is such a value. Every conversion of a value Workbench was given
/// goes through here and turns "too large to count" into a refusal the caller words, never a crash.
public enum WholeNumber {
    /// `value` rounded by `rule`, or nil when it is not a number or its rounding lies outside `Int`'s range.
    public static func rounding(_ value: Double, _ rule: FloatingPointRoundingRule = .towardZero) -> Int? {
        Int(exactly: value.rounded(rule))
    }

    /// `value` rounded by `rule` and clamped into `range`; nil only when it is not a number. For counts whose
    /// useful values lie in a known range (a frame index within a video), where anything beyond is as good as
    /// the bound.
    public static func clamped(_ value: Double, _ rule: FloatingPointRoundingRule = .towardZero, to range: ClosedRange<Int>) -> Int? {
        guard !value.isNaN else { return nil }
        let rounded = value.rounded(rule)
        if rounded <= Double(range.lowerBound) { return range.lowerBound }
        if rounded >= Double(range.upperBound) { return range.upperBound }
        return Int(rounded)
    }

    /// `value` rounded by `rule`, the nearest `Int` when beyond its range, 0 when not a number: for a number only
    /// shown or used as a key, where any whole number near it will do.
    public static func saturating(_ value: Double, _ rule: FloatingPointRoundingRule = .towardZero) -> Int {
        clamped(value, rule, to: Int.min...Int.max) ?? 0
    }
}
