/// SplitMix64 (Steele, Lea & Flood, 2014): a tiny generator whose output depends only on its seed, on every
/// platform and Swift version, unlike the standard library's unspecified default generator.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose whole output is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// SplitMix64's finaliser: a bijective scramble of 64 bits, also a good hash for deriving seeds.
    public static func mix(_ value: UInt64) -> UInt64 {
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A uniform integer in `0..<bound` by rejection sampling, so no value is favoured.
    public mutating func uniform(below bound: Int) -> Int {
        precondition(bound > 0)
        let limit = UInt64(bound)
        // Largest multiple of `limit` that fits; draws at or above it would bias the remainder.
        let threshold = UInt64.max - UInt64.max % limit
        while true {
            let value = next()
            if value < threshold { return Int(value % limit) }
        }
    }

    /// Fisher–Yates shuffle.
    public mutating func shuffle<T>(_ values: inout [T]) {
        guard values.count > 1 else { return }
        for index in stride(from: values.count - 1, to: 0, by: -1) {
            values.swapAt(index, uniform(below: index + 1))
        }
    }
}
