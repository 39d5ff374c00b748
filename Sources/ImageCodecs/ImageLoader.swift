#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads image files and picks the decoder from the file's first bytes, never from its extension.
public enum ImageLoader {
    /// Reads the file at `path` and decodes it (JPEG or PNG, chosen by magic bytes).
    public static func load(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> RGBImage {
        let bytes = try readFile(path: path)
        return try decode(bytes: bytes, path: path, options: options)
    }

    /// Decodes an in-memory file; `path` only names it in errors.
    public static func decode(bytes: [UInt8], path: String,
                              options: DecodeOptions = DecodeOptions()) throws(ImageError) -> RGBImage {
        switch ImageFormat(magic: bytes) {
        case .jpeg: return try JPEGDecoder.decode(bytes: bytes, path: path, options: options)
        case .png: return try PNGDecoder.decode(bytes: bytes, path: path, options: options)
        case .empty: throw ImageError(path: path, reason: "empty file")
        case .unknown: throw ImageError(path: path, reason: "not a JPEG or PNG image")
        }
    }

    /// The whole file, or an error naming why it could not be read.
    static func readFile(path: String) throws(ImageError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            throw ImageError(path: path, reason: code == ENOENT ? "no such file" : "cannot open: \(describe(code))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw ImageError(path: path, reason: "cannot read: \(describe(errno))")
        }
        if (status.st_mode & S_IFMT) == S_IFDIR { throw ImageError(path: path, reason: "is a folder, not a file") }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(max(Int(status.st_size), 0))
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ImageError(path: path, reason: "cannot read: \(describe(errno))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    private static func describe(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        return String(cString: message).lowercased()
    }
}

/// The container formats told apart by their signatures.
enum ImageFormat: Equatable {
    case jpeg, png, empty, unknown

    /// JPEG starts with SOI + a marker (FF D8 FF); PNG with its 8-byte signature.
    init(magic bytes: [UInt8]) {
        if bytes.isEmpty {
            self = .empty
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else {
            self = .unknown
        }
    }
}
