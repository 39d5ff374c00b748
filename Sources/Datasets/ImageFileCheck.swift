import FileFormats
import Foundation

/// Decides which files of a dataset folder are pictures, from their first bytes and their extension.
///
/// The full decoders live in ImageCodecs; this check only sorts files so that a scan can skip notes, spreadsheets
/// and the like while keeping every file that claims to be a picture (a broken `.jpg` stays in, and the decoder
/// later reports it as unreadable rather than it silently vanishing).
public enum ImageFileCheck {
    /// What a file looks like.
    public enum Verdict: Sendable, Equatable {
        /// Picture content (JPEG, PNG, WebP, HEIF, TIFF, GIF or BMP), or a picture extension: part of the dataset.
        case image
        /// Not a picture; the reason says why, for `--verbose` listings.
        case notImage(reason: String)
    }

    /// Extensions that make a file count as a picture even when its content does not look like one (lower case;
    /// files are matched case-insensitively).
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "heic", "heif", "tif", "tiff", "gif", "bmp"]

    /// Bytes `hasImageMagic` looks at: a HEIF file's `ftyp` box with its first brands.
    public static let magicLength = 32

    /// The reason a regular file that is no picture is passed over ("not a picture Workbench can read (extension .txt)").
    public static func notPictureReason(fileExtension: String) -> String {
        "not a picture Workbench can read (\(fileExtension.isEmpty ? "no extension" : "extension .\(fileExtension)"))"
    }

    /// Whether `header` (the first bytes of a file) starts like a picture ImageCodecs decodes: JPEG, PNG, WebP
    /// (RIFF "WEBP"), HEIF (an `ftyp` box with a HEIF brand), TIFF, GIF or BMP. ImageCodecs' `ImageFormat` makes the
    /// final, stricter decision.
    public static func hasImageMagic(_ header: [UInt8]) -> Bool {
        func ascii(_ range: Range<Int>) -> String? {
            range.upperBound <= header.count ? String(decoding: header[range], as: UTF8.self) : nil
        }
        if header.starts(with: [0xFF, 0xD8, 0xFF]) || header.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return true
        }
        if ascii(0..<4) == "RIFF" && ascii(8..<12) == "WEBP" { return true }
        if ascii(4..<8) == "ftyp" {
            let brands = stride(from: 8, to: header.count - 3, by: 4).compactMap { ascii($0..<($0 + 4)) }
            if brands.contains(where: heifBrands.contains) { return true }
        }
        if [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B]]
            .contains(where: { header.starts(with: $0) })
        {
            return true
        }
        if ascii(0..<6) == "GIF87a" || ascii(0..<6) == "GIF89a" { return true }
        return header.count >= 18 && header.starts(with: [0x42, 0x4D]) && header[16] == 0 && header[17] == 0
            && [12, 16, 40, 52, 56, 64, 108, 124].contains(Int(header[14]) | Int(header[15]) << 8)
    }

    /// HEIF still-image brands (`ImageFormat.heifBrands` in ImageCodecs).
    private static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1"]

    /// Classifies the file at `path` from its first bytes and its extension.
    public static func verdict(path: String) -> Verdict {
        let fileExtension = (path as NSString).pathExtension.lowercased()
        if imageExtensions.contains(fileExtension) { return .image }
        guard let header = firstBytes(path: path, count: magicLength) else { return .notImage(reason: "cannot read the file") }
        if hasImageMagic(header) { return .image }
        return .notImage(reason: notPictureReason(fileExtension: fileExtension))
    }

    /// Up to `count` bytes from the start of a regular file, or nil when it cannot be opened (FIFOs and devices
    /// are refused unopened, see `InputFile`).
    static func firstBytes(path: String, count: Int) -> [UInt8]? {
        guard let file = try? InputFile.open(path: path, maximumBytes: .max) else { return nil }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 8)
        defer { buffer.deallocate() }
        var filled = 0
        while filled < count {
            guard let read = try? file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) else { return nil }
            if read == 0 { break }
            filled += read
        }
        return Array(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
    }
}
