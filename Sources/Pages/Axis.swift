import Foundation

/// A numeric chart axis: the data range, how values map onto it, and where the tick marks go.
public struct Axis: Sendable, Equatable {
    /// How values are spaced along the axis.
    public enum Spacing: Sendable, Equatable {
        case linear
        /// Equal distances for equal ratios (for an L2 grid spanning decades); the range must be positive.
        case logarithmic
    }

    /// How tick values are written.
    public enum TickStyle: Sendable, Equatable {
        /// As numbers with the fewest decimals that tell the ticks apart.
        case number
        /// Fractions as percentages (0.5 → "50 %").
        case percent
        /// Powers of ten as "10⁻³", "10²" (other values as numbers).
        case powerOfTen
    }

    public var lower: Double
    public var upper: Double
    public var spacing: Spacing
    public var tickStyle: TickStyle

    /// An axis over `lower…upper` (swapped if given the wrong way round; widened when empty; 0…1 when a bound is
    /// not a finite number, whose ticks could not be counted).
    public init(lower: Double, upper: Double, spacing: Spacing = .linear, tickStyle: TickStyle = .number) {
        var low = min(lower, upper), high = max(lower, upper)
        if !low.isFinite || !high.isFinite { (low, high) = (0, 1) }
        if spacing == .logarithmic {
            low = max(low, Double.leastNormalMagnitude)
            high = max(high, low)
            if high <= low { low /= 10; high *= 10 }
        } else if high <= low {
            low -= 0.5
            high += 0.5
        }
        self.lower = low
        self.upper = high
        self.spacing = spacing
        self.tickStyle = tickStyle
    }

    /// The fraction 0…1 of the way from `lower` to `upper` where `value` sits (outside 0…1 when out of range).
    public func fraction(_ value: Double) -> Double {
        switch spacing {
        case .linear: return (value - lower) / (upper - lower)
        case .logarithmic: return (log10(max(value, Double.leastNormalMagnitude)) - log10(lower)) / (log10(upper) - log10(lower))
        }
    }

    /// Tick values inside the range: steps of 1, 2 or 5 × 10ⁿ giving about `target` ticks (linear), or the
    /// powers of ten inside the range, thinned to at most `target + 2` (logarithmic).
    public func ticks(target: Int = 5) -> [Double] {
        switch spacing {
        case .linear:
            // Steps of 1, 2 or 5 × 10ⁿ; the one whose tick count is nearest the target wins (the larger on a tie).
            let exponent = Int(floor(log10((upper - lower) / Double(max(1, target)))))
            var best: [Double] = []
            for power in [exponent - 1, exponent, exponent + 1] {
                for mantissa in [1, 2, 5] {
                    let values = Self.multiples(of: mantissa, power: power, from: lower, to: upper)
                    if best.isEmpty || abs(values.count - target) <= abs(best.count - target) { best = values }
                }
            }
            return best
        case .logarithmic:
            let first = Int(ceil(log10(lower) - 1e-9)), last = Int(floor(log10(upper) + 1e-9))
            guard first <= last else { return [lower, upper] }
            let every = max(1, Int(ceil(Double(last - first + 1) / Double(target + 2))))
            return stride(from: first, through: last, by: every).map { pow(10, Double($0)) }
        }
    }

    /// The multiples k · mantissa · 10^power inside lower…upper. Each is computed as an integer divided (or
    /// multiplied) by an exact power of ten, so 0.6 is 6 / 10, not 3 × 0.2 = 0.6000000000000001.
    private static func multiples(of mantissa: Int, power: Int, from lower: Double, to upper: Double) -> [Double] {
        let scale = pow(10, Double(abs(power)))
        func value(_ k: Int) -> Double { power < 0 ? Double(k * mantissa) / scale : Double(k * mantissa) * scale }
        let step = value(1)
        guard step > 0, (upper - lower) / step < 1000 else { return [] }
        var values: [Double] = []
        var k = Int((lower / step).rounded(.up))
        while value(k) <= upper + step * 1e-9 {
            values.append(value(k) == 0 ? 0 : value(k))
            k += 1
        }
        return values
    }

    /// The text of a tick at `value`, given all the ticks (so decimals can be chosen to tell them apart).
    public func tickLabel(_ value: Double, among ticks: [Double]) -> String {
        switch tickStyle {
        case .percent:
            return Markup.number(value * 100, decimals: decimalsNeeded(ticks.map { $0 * 100 })) + " %"
        case .powerOfTen:
            let exponent = log10(value)
            if abs(exponent - exponent.rounded()) < 1e-9 { return Self.powerOfTen(Int(exponent.rounded())) }
            return Markup.number(value, decimals: 3)
        case .number:
            return Markup.number(value, decimals: decimalsNeeded(ticks))
        }
    }

    /// The fewest decimals (0…4) that write every tick distinctly.
    private func decimalsNeeded(_ ticks: [Double]) -> Int {
        for decimals in 0...4 {
            let texts = ticks.map { Markup.number($0, decimals: decimals) }
            if Set(texts).count == texts.count { return decimals }
        }
        return 4
    }

    /// "10" followed by the exponent in superscript digits: 10⁻³, 10⁰, 10⁴.
    static func powerOfTen(_ exponent: Int) -> String {
        let superscripts: [Character: Character] = [
            "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵",
            "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹", "-": "⁻",
        ]
        return "10" + String(String(exponent).map { superscripts[$0] ?? $0 })
    }
}
