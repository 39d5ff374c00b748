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
