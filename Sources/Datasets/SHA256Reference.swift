/// A plain, array-based SHA-256 kept beside the fast `SHA256` so tests can compare the two on many lengths.
/// It pads the whole message in memory and spells every step out; it is not meant to be fast.
enum SHA256Reference {
    static func hash(_ message: [UInt8]) -> [UInt8] {
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitLength = UInt64(message.count) * 8
        for index in 0..<8 { padded.append(UInt8((bitLength >> UInt64(56 - 8 * index)) & 0xff)) }

        var hashValues: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
        for blockStart in stride(from: 0, to: padded.count, by: 64) {
            var schedule = [UInt32](repeating: 0, count: 64)
            for index in 0..<16 {
                var word: UInt32 = 0
                for byte in 0..<4 { word = (word << 8) | UInt32(padded[blockStart + 4 * index + byte]) }
                schedule[index] = word
            }
            for index in 16..<64 {
                let sigma0 = rotate(schedule[index - 15], 7) ^ rotate(schedule[index - 15], 18) ^ (schedule[index - 15] >> 3)
                let sigma1 = rotate(schedule[index - 2], 17) ^ rotate(schedule[index - 2], 19) ^ (schedule[index - 2] >> 10)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var working = hashValues
            for round in 0..<64 {
                let e = working[4], a = working[0]
                let step1 = working[7] &+ (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25))
                    &+ ((e & working[5]) ^ (~e & working[6])) &+ SHA256.roundConstants[round] &+ schedule[round]
                let step2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) &+ ((a & working[1]) ^ (a & working[2]) ^ (working[1] & working[2]))
                working = [step1 &+ step2, working[0], working[1], working[2], working[3] &+ step1, working[4], working[5], working[6]]
            }
            for index in 0..<8 { hashValues[index] = hashValues[index] &+ working[index] }
        }
        return hashValues.flatMap { word in (0..<4).map { UInt8((word >> UInt32(24 - 8 * $0)) & 0xff) } }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
