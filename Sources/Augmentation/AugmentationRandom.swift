import TensorCore

/// The random stream of one transform of one view: SplitMix64 started from a hash of (seed, epoch, image,
/// transform). Each view owns its streams, so a view never depends on which thread makes it, on the order views
/// are made, or on which other transforms are on.
public struct AugmentationRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    /// The stream of `transform` for image `image` at `epoch` with `seed`; `substream` tells apart streams of one
    /// transform (the noise's choice of strength is 0, its samples 1).
    public init(seed: UInt64, epoch: Int, image: Int, transform: AugmentationPolicy.Transform, substream: UInt64 = 0) {
        let transformNumber = UInt64(AugmentationPolicy.Transform.allCases.firstIndex(of: transform)!)
        var hash = SplitMix64.mix(seed ^ 0x5851_F42D_4C95_7F2D)
        hash = SplitMix64.mix(hash ^ UInt64(bitPattern: Int64(epoch)) &* 0x9E37_79B9_7F4A_7C15)
        hash = SplitMix64.mix(hash ^ UInt64(bitPattern: Int64(image)) &* 0xC2B2_AE3D_27D4_EB4F)
        hash = SplitMix64.mix(hash ^ (transformNumber &+ 1) &* 0x1656_67B1_9E37_79F9)
        hash = SplitMix64.mix(hash ^ (substream &+ 1) &* 0x27D4_EB2F_1656_67C5)
        generator = SplitMix64(seed: hash)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 { generator.next() }

    /// Uniform in [0, 1), 53 bits.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// Uniform in [lower, upper] (upper itself has probability ~0).
    public mutating func uniform(_ lower: Double, _ upper: Double) -> Double {
        lower + (upper - lower) * unit()
    }

    /// A standard normal sample (Box–Muller; one of the pair is used, so the stream stays simple).
    public mutating func normal() -> Double {
        let first = 1 - unit()  // (0, 1]: the logarithm stays finite
        let second = unit()
        return (-2 * log(first)).squareRoot() * cos(2 * Double.pi * second)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
