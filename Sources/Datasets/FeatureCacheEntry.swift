/// The byte layout of one cache entry, all integers little-endian:
///
///     magic "WBFC" | version u32 | key length u32 | key bytes | count u32 | count × f32 | SHA-256 of all before (32)
///
/// The full key is stored so a (vanishingly unlikely) file-name collision is detected rather than served.
enum FeatureCacheEntry {
    static let magic: [UInt8] = Array("WBFC".utf8)
    static let version: UInt32 = 1
    static let checksumLength = 32

    static func encode(key: [UInt8], features: [Float]) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(16 + key.count + 4 * features.count + checksumLength)
        append(version, to: &bytes)
        append(UInt32(key.count), to: &bytes)
        bytes += key
        append(UInt32(features.count), to: &bytes)
        for value in features { append(value.bitPattern, to: &bytes) }
        bytes += SHA256.hash(bytes)
        return bytes
    }

    /// The features, or nil when the bytes are not a complete, intact entry for `key`.
    static func decode(_ bytes: [UInt8], key: [UInt8]) -> [Float]? {
        let fixedLength = magic.count + 4 + 4 + 4 + checksumLength
        guard bytes.count >= fixedLength, bytes.starts(with: magic),
            readUInt32(bytes, at: 4) == version,
            let keyLength = readUInt32(bytes, at: 8).map(Int.init), keyLength == key.count,
            bytes.count >= fixedLength + keyLength,
            bytes[12..<(12 + keyLength)].elementsEqual(key),
            let count = readUInt32(bytes, at: 12 + keyLength).map(Int.init),
            bytes.count == fixedLength + keyLength + 4 * count
        else { return nil }
        let body = bytes.count - checksumLength
        guard SHA256.hash(Array(bytes[..<body])) == Array(bytes[body...]) else { return nil }
        let start = 16 + keyLength
        return (0..<count).map { Float(bitPattern: readUInt32(bytes, at: start + 4 * $0)!) }
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[offset + index]) << UInt32(8 * index) }
        return value
    }
}
