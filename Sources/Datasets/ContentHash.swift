import FileFormats
import Foundation

/// The SHA-256 of a file's bytes: identifies an image by content, whatever its name or folder.
public struct ContentHash: Hashable, Sendable, CustomStringConvertible {
    /// The 32 digest bytes.
    public let bytes: [UInt8]

    /// Wraps a digest; `bytes` must be 32 bytes long.
    public init(digest bytes: [UInt8]) {
        precondition(bytes.count == 32, "a SHA-256 digest has 32 bytes, not \(bytes.count)")
        self.bytes = bytes
    }

    /// The digest of `bytes`.
    public static func of(_ bytes: [UInt8]) -> ContentHash {
        ContentHash(digest: SHA256.hash(bytes))
    }

    /// The digest of a file's content, read in 1 MiB chunks. Only regular files are opened (see `InputFile`).
    public static func ofFile(path: String) throws(DatasetError) -> ContentHash {
        do {
            return try of(file: try InputFile.open(path: path, maximumBytes: .max))
        } catch {
            throw DatasetError(path: path, reason: error.reason)
        }
    }

    /// The digest of an open file's content from its first byte, read in 1 MiB chunks.
    public static func of(file: InputFile) throws(InputFile.Failure) -> ContentHash {
        try file.rewind()
        var hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try file.read(into: buffer)
            if count == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return ContentHash(digest: hasher.finalize())
    }

    /// Lowercase hexadecimal, 64 characters.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        characters.reserveCapacity(64)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// The hexadecimal digest.
    public var description: String { hex }
}
