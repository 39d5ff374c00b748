import FileFormats
import Foundation

/// Decides which files of a dataset folder are images, from their first bytes and their extension.
///
/// The full decoders live in ImageCodecs; this check only sorts files so that a scan can skip notes, spreadsheets
/// and the like while keeping every file that claims to be an image (a broken `.jpg` stays in, and the decoder
/// later reports it as unreadable rather than it silently vanishing).
public enum ImageFileCheck {
    /// What a file looks like.
    public enum Verdict: Sendable, Equatable {
        /// JPEG or PNG content, or an image extension: part of the dataset.
        case image
        /// Not an image; the reason says why, for `--verbose` listings.
        case notImage(reason: String)
    }

    /// Extensions that make a file count as an image even when its content does not look like one.
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png"]

    private static let jpegMagic: [UInt8] = [0xFF, 0xD8, 0xFF]
    private static let pngMagic: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Whether `header` (the first bytes of a file) starts like a JPEG or a PNG.
    public static func hasImageMagic(_ header: [UInt8]) -> Bool {
        header.starts(with: jpegMagic) || header.starts(with: pngMagic)
    }

    /// Classifies the file at `path` from its first 8 bytes and its extension.
    public static func verdict(path: String) -> Verdict {
        let fileExtension = (path as NSString).pathExtension.lowercased()
        if imageExtensions.contains(fileExtension) { return .image }
        guard let header = firstBytes(path: path, count: 8) else { return .notImage(reason: "cannot read the file") }
        if hasImageMagic(header) { return .image }
        let shown = fileExtension.isEmpty ? "no extension" : "extension .\(fileExtension)"
        return .notImage(reason: "not a JPEG or PNG image (\(shown))")
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
