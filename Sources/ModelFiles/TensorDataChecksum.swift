import Crypto
import FileFormats

extension ModelFile {
    /// The `tensor_data_sha256` metadata value for `container`: the SHA-256, as lowercase hex, of its data section
    /// as `SafetensorsFile.serialized()` lays it out (every tensor's float32 little-endian bytes, tensors sorted by
    /// name). The metadata does not enter the digest, so adding the checksum does not change it.
    public static func tensorDataChecksum(_ container: SafetensorsFile) -> String {
        var hasher = Crypto.SHA256()
        for name in container.tensors.keys.sorted() {
            container.tensors[name]!.values.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        }
        return hexadecimal(hasher.finalize())
    }

    /// The SHA-256 of the stored bytes after the header, as `tensorDataChecksum` computes it for what was written.
    static func storedTensorDataChecksum(_ bytes: [UInt8], dataStart: Int) -> String {
        var hasher = Crypto.SHA256()
        bytes.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[dataStart...])) }
        return hexadecimal(hasher.finalize())
    }

    /// Whether `container`'s tensors as its header places them are the checksummed data: the checksum covers the
    /// data section, not the header, so two tensors of one size with their offsets swapped would pass it and load
    /// each other's weights. Every writer lays tensors out in name order (`SafetensorsFile.serialized()`), so for
    /// an intact file the digest of the tensors in name order is the stored one.
    static func tensorsMatchChecksum(_ container: SafetensorsFile, stored: String) -> Bool {
        tensorDataChecksum(container) == stored
    }

    /// The reason a file whose header places its tensors elsewhere than they were written is refused.
    static let misplacedTensorsReason =
        "corrupted header: its tensors' offsets do not place them where they were written (the data matches its checksum, the tensors do not)"

    private static func hexadecimal(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
