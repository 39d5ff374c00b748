import FileFormats

/// Reads image files and picks the decoder from the file's first bytes, never from its extension.
///
/// Files are never read whole: a decoder streams the file 64 KB at a time and keeps only what the options ask
/// for. Only regular files are opened (a FIFO, a device or a folder is refused unopened) and a file larger than
/// `DecodeOptions.maximumFileBytes` is refused by its size, unread.
public enum ImageLoader {
    /// Opens and decodes the image file at `path` (JPEG or PNG, chosen by magic bytes).
    public static func load(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> RGBImage {
        try decode(file: try open(path: path, options: options), options: options)
    }

    /// Opens the image file at `path` for `decode(file:options:)`: a regular file within the size limit. The
    /// same open file can be hashed first, so what is decoded is exactly what was hashed.
    public static func open(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> InputFile {
        do {
            return try InputFile.open(path: path, maximumBytes: options.maximumFileBytes)
        } catch {
            switch error.kind {
            case .tooLarge(let byteCount, let limit):
                throw ImageError(path: path, reason: "file is \(InputFile.describe(byteCount: byteCount)), larger than "
                                 + "an image of at most \(options.maximumPixels / 1_000_000) megapixels can be "
                                 + "(limit \(InputFile.describe(byteCount: limit)))")
            default:
                throw ImageError(path: path, reason: error.reason)
            }
        }
    }

    /// Decodes an open file from its first byte.
    public static func decode(file: InputFile, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> RGBImage {
        let path = file.path
        let magicBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 8)
        defer { magicBuffer.deallocate() }
        var filled = 0
        do {
            try file.rewind()
            while filled < magicBuffer.count {
                let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: magicBuffer[filled...]))
                if count == 0 { break }
                filled += count
            }
            try file.rewind()
        } catch {
            throw ImageError(path: path, reason: error.reason)
        }
        let magic = Array(UnsafeRawBufferPointer(rebasing: magicBuffer[0..<filled]))
        switch ImageFormat(magic: magic) {
        case .jpeg: return try JPEGDecoder.decode(from: .file(descriptor: file.descriptor), path: path, options: options)
        case .png: return try PNGDecoder.decode(from: .file(descriptor: file.descriptor), path: path, options: options)
        case .empty: throw ImageError(path: path, reason: "empty file")
        case .unknown: throw ImageError(path: path, reason: "not a JPEG or PNG image")
        }
    }

    /// The size of the image file at `path` as a decode with `options` would see it before any crop (EXIF
    /// orientation applied), read from its header: no pixel data is decoded, so a folder's sizes cost a few KB of
    /// reading each. The file is opened as `open` opens it and the pixel limits are checked as a decode checks them.
    public static func size(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> ImageSize {
        let file = try open(path: path, options: options)
        // Closed here, after the header is read: the decoders use the descriptor, not the object.
        defer { file.close() }
        let magicBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 8, alignment: 8)
        defer { magicBuffer.deallocate() }
        var filled = 0
        do {
            while filled < magicBuffer.count {
                let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: magicBuffer[filled...]))
                if count == 0 { break }
                filled += count
            }
            try file.rewind()
        } catch {
            throw ImageError(path: path, reason: error.reason)
        }
        switch ImageFormat(magic: Array(UnsafeRawBufferPointer(rebasing: magicBuffer[0..<filled]))) {
        case .jpeg: return try JPEGDecoder.displayedSize(from: .file(descriptor: file.descriptor), path: path, options: options)
        case .png: return try PNGDecoder.displayedSize(from: .file(descriptor: file.descriptor), path: path, options: options)
        case .empty: throw ImageError(path: path, reason: "empty file")
        case .unknown: throw ImageError(path: path, reason: "not a JPEG or PNG image")
        }
    }

    /// Decodes an in-memory file; `path` only names it in errors.
    public static func decode(bytes: [UInt8], path: String,
                              options: DecodeOptions = DecodeOptions()) throws(ImageError) -> RGBImage {
        try bytes.withUnsafeBufferPointer { buffer throws(ImageError) -> RGBImage in
            switch ImageFormat(magic: Array(bytes.prefix(8))) {
            case .jpeg: return try JPEGDecoder.decode(from: .memory(buffer), path: path, options: options)
            case .png: return try PNGDecoder.decode(from: .memory(buffer), path: path, options: options)
            case .empty: throw ImageError(path: path, reason: "empty file")
            case .unknown: throw ImageError(path: path, reason: "not a JPEG or PNG image")
            }
        }
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
