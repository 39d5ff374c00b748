import FileFormats

/// Reads image files and picks the decoder from the file's first bytes, never from its extension: JPEG, PNG,
/// WebP, HEIF (HEIC), TIFF, GIF and BMP.
///
/// Files are never read whole, but for WebP, whose library decodes from memory (at most `maximumFileBytes`): a
/// decoder streams the file 64 KB at a time, or reads the parts its library asks for, and keeps only what the
/// options ask for. Only regular files are opened (a FIFO, a device or a folder is refused unopened) and a file
/// larger than `DecodeOptions.maximumFileBytes` is refused by its size, unread. Every decoder checks the header's
/// size against the pixel limit before it allocates the image.
public enum ImageLoader {
    /// The formats the loader reads, for messages: "JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP".
    public static let formatNames = "JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP"

    /// Opens and decodes the image file at `path` (the format chosen by magic bytes).
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
                throw ImageError(
                    path: path,
                    reason: "file is \(InputFile.describe(byteCount: byteCount)), larger than "
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
        let format = ImageFormat(magic: try magic(of: file))
        let source = CompressedSource.file(descriptor: file.descriptor)
        switch format {
        case .jpeg: return try JPEGDecoder.decode(from: .file(descriptor: file.descriptor), path: path, options: options)
        case .png: return try PNGDecoder.decode(from: .file(descriptor: file.descriptor), path: path, options: options)
        case .webp: return try WebPDecoder.decode(from: source, path: path, options: options)
        case .heif: return try HEIFDecoder.decode(from: source, path: path, options: options)
        case .tiff: return try TIFFDecoder.decode(from: source, path: path, options: options)
        case .gif: return try GIFDecoder.decode(from: source, path: path, options: options)
        case .bmp: return try BMPDecoder.decode(from: source, path: path, options: options)
        case .empty, .unknown: throw unreadable(format, path: path)
        }
    }

    /// The size of the image file at `path` as a decode with `options` would see it before any crop (orientation
    /// applied), read from its header: no pixel data is decoded, so a folder's sizes cost a few KB of reading each
    /// (a WebP file is read whole). The file is opened as `open` opens it and the pixel limits are checked as a
    /// decode checks them.
    public static func size(path: String, options: DecodeOptions = DecodeOptions()) throws(ImageError) -> ImageSize {
        let file = try open(path: path, options: options)
        // Closed here, after the header is read: the decoders use the descriptor, not the object.
        defer { file.close() }
        let format = ImageFormat(magic: try magic(of: file))
        let source = CompressedSource.file(descriptor: file.descriptor)
        switch format {
        case .jpeg: return try JPEGDecoder.displayedSize(from: .file(descriptor: file.descriptor), path: path, options: options)
        case .png: return try PNGDecoder.displayedSize(from: .file(descriptor: file.descriptor), path: path, options: options)
        case .webp: return try WebPDecoder.displayedSize(from: source, path: path, options: options)
        case .heif: return try HEIFDecoder.displayedSize(from: source, path: path, options: options)
        case .tiff: return try TIFFDecoder.displayedSize(from: source, path: path, options: options)
        case .gif: return try GIFDecoder.displayedSize(from: source, path: path, options: options)
        case .bmp: return try BMPDecoder.displayedSize(from: source, path: path, options: options)
        case .empty, .unknown: throw unreadable(format, path: path)
        }
    }

    /// Decodes an in-memory file; `path` only names it in errors.
    public static func decode(
        bytes: [UInt8], path: String,
        options: DecodeOptions = DecodeOptions()
    ) throws(ImageError) -> RGBImage {
        try bytes.withUnsafeBufferPointer { buffer throws(ImageError) -> RGBImage in
            let format = ImageFormat(magic: Array(bytes.prefix(ImageFormat.magicLength)))
            switch format {
            case .jpeg: return try JPEGDecoder.decode(from: .memory(buffer), path: path, options: options)
            case .png: return try PNGDecoder.decode(from: .memory(buffer), path: path, options: options)
            case .webp: return try WebPDecoder.decode(from: .memory(buffer), path: path, options: options)
            case .heif: return try HEIFDecoder.decode(from: .memory(buffer), path: path, options: options)
            case .tiff: return try TIFFDecoder.decode(from: .memory(buffer), path: path, options: options)
            case .gif: return try GIFDecoder.decode(from: .memory(buffer), path: path, options: options)
            case .bmp: return try BMPDecoder.decode(from: .memory(buffer), path: path, options: options)
            case .empty, .unknown: throw unreadable(format, path: path)
            }
        }
    }

    /// The first bytes of `file`, which is left rewound to its start.
    private static func magic(of file: InputFile) throws(ImageError) -> [UInt8] {
        let magicBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ImageFormat.magicLength, alignment: 8)
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
            throw ImageError(path: file.path, reason: error.reason)
        }
        return Array(UnsafeRawBufferPointer(rebasing: magicBuffer[0..<filled]))
    }

    private static func unreadable(_ format: ImageFormat, path: String) -> ImageError {
        format == .empty
            ? ImageError(path: path, reason: "empty file")
            : ImageError(path: path, reason: "not a picture Workbench can read (\(formatNames))")
    }
}

/// The container formats told apart by their signatures.
enum ImageFormat: Equatable {
    case jpeg, png, webp, heif, tiff, gif, bmp, empty, unknown

    /// Bytes a signature may need: a HEIF file's `ftyp` box with its first brands.
    static let magicLength = 64

    /// ISO base media brands of HEIF still images that libheif decodes (HEVC-coded, as iPhones write, and the
    /// generic image brands that AVIF files carry too).
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1"]

    /// JPEG starts with SOI + a marker (FF D8 FF); PNG with its 8-byte signature; WebP is a RIFF file of form type
    /// "WEBP"; HEIF starts with an `ftyp` box naming a HEIF brand (major or compatible); TIFF with "II*\0" or
    /// "MM\0*" (or BigTIFF's "II+\0", "MM\0+"); GIF with "GIF87a" or "GIF89a"; BMP with "BM" and a known DIB
    /// header size.
    init(magic bytes: [UInt8]) {
        func ascii(_ range: Range<Int>) -> String? {
            guard range.upperBound <= bytes.count else { return nil }
            return String(decoding: bytes[range], as: UTF8.self)
        }
        if bytes.isEmpty {
            self = .empty
        } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if ascii(0..<4) == "RIFF", ascii(8..<12) == "WEBP" {
            self = .webp
        } else if ascii(4..<8) == "ftyp", Self.hasHEIFBrand(bytes) {
            self = .heif
        } else if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || bytes.starts(with: [0x49, 0x49, 0x2B, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2B])
        {
            self = .tiff
        } else if ascii(0..<6) == "GIF87a" || ascii(0..<6) == "GIF89a" {
            self = .gif
        } else if bytes.count >= 18, bytes[0] == 0x42, bytes[1] == 0x4D,
            [12, 16, 40, 52, 56, 64, 108, 124].contains(Int(bytes[14]) | Int(bytes[15]) << 8),
            bytes[16] == 0, bytes[17] == 0
        {
            self = .bmp
        } else {
            self = .unknown
        }
    }

    /// Whether the `ftyp` box at the start names a HEIF brand: its major brand (bytes 8–11) or one of the
    /// compatible brands after the minor version, as far as the box and the bytes go.
    private static func hasHEIFBrand(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 12 else { return false }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(bytes.count, max(boxSize, 12))
        var brands = [8]
        brands += stride(from: 16, to: end - 3, by: 4).map { $0 }
        return brands.contains { offset in
            offset + 4 <= end && heifBrands.contains(String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self))
        }
    }
}
