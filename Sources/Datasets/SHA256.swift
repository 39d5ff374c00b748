/// SHA-256 (FIPS 180-4), written here because CryptoKit does not exist on Linux.
///
/// Streaming: `update` any number of times, then `finalize`. Whole 64-byte blocks are compressed straight from
/// the caller's memory; only a partial block is copied into the internal buffer.
public struct SHA256: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    private var pending: [UInt8] = []
    private var totalByteCount: UInt64 = 0

    /// A hasher with nothing absorbed yet.
    public init() { pending.reserveCapacity(64) }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var cursor = bytes.baseAddress, bytes.count > 0 else { return }
        var remaining = bytes.count
        totalByteCount &+= UInt64(remaining)
        if !pending.isEmpty {
            let taken = min(64 - pending.count, remaining)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: cursor, count: taken))
            cursor += taken
            remaining -= taken
            if pending.count < 64 { return }
            pending.withUnsafeBytes { Self.compress(blocks: $0.baseAddress!, count: 1, state: &state) }
            pending.removeAll(keepingCapacity: true)
        }
        let blockCount = remaining / 64
        if blockCount > 0 {
            Self.compress(blocks: cursor, count: blockCount, state: &state)
            cursor += blockCount * 64
            remaining -= blockCount * 64
        }
        if remaining > 0 { pending.append(contentsOf: UnsafeRawBufferPointer(start: cursor, count: remaining)) }
    }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest of everything absorbed. The hasher should not be used afterwards.
    public mutating func finalize() -> [UInt8] {
        let bitCount = totalByteCount &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift))) }
        tail.withUnsafeBytes { Self.compress(blocks: $0.baseAddress!, count: tail.count / 64, state: &state) }
        pending.removeAll()
        var digest: [UInt8] = []
        digest.reserveCapacity(32)
        for word in [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7] {
            for shift in stride(from: 24, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt32(shift))) }
        }
        return digest
    }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The round constants: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
    static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    // MARK: - The hot loop

    /// Compresses `count` consecutive 64-byte blocks starting at `blocks` into `state`.
    /// Words are big-endian; the message schedule lives in a 64-word stack buffer reused for every block.
    private static func compress(
        blocks: UnsafeRawPointer, count: Int,
        state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    ) {
        roundConstants.withUnsafeBufferPointer { k in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                var (h0, h1, h2, h3, h4, h5, h6, h7) = state
                for blockIndex in 0..<count {
                    let block = blocks + blockIndex * 64
                    for t in 0..<16 { w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self)) }
                    for t in 16..<64 {
                        let x = w[t - 15], y = w[t - 2]
                        let s0 = rotateRight(x, 7) ^ rotateRight(x, 18) ^ (x >> 3)
                        let s1 = rotateRight(y, 17) ^ rotateRight(y, 19) ^ (y >> 10)
                        w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                    }
                    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7
                    for t in 0..<64 {
                        let sum1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
                        let choose = (e & f) ^ (~e & g)
                        let temporary1 = h &+ sum1 &+ choose &+ k[t] &+ w[t]
                        let sum0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let temporary2 = sum0 &+ majority
                        h = g; g = f; f = e; e = d &+ temporary1
                        d = c; c = b; b = a; a = temporary1 &+ temporary2
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d; h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= h
                }
                state = (h0, h1, h2, h3, h4, h5, h6, h7)
            }
        }
    }

    @inline(__always)
    private static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
