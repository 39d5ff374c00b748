import Crypto

/// SHA-256 (FIPS 180-4): swift-crypto's `Crypto.SHA256`, which on Linux is BoringSSL's assembly (SHA-NI or
/// AVX2 where the CPU has them), behind the small array API the rest of Workbench calls.
///
/// Streaming: `update` any number of times, then `finalize`. The digests are those of the standard, so feature
/// cache keys written by the earlier hand-written implementation stay valid; `SHA256Reference` is the naive
/// version the tests compare this with.
public struct SHA256: Sendable {
    private var hasher = Crypto.SHA256()

    /// A hasher with nothing absorbed yet.
    public init() {}

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: bytes)
    }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
    }

    /// The 32-byte digest of everything absorbed. The hasher should not be used afterwards.
    public mutating func finalize() -> [UInt8] {
        Array(hasher.finalize())
    }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
