// TEMPORARY stand-in for ImageCodecs until it lands on main; deleted after `git merge main`.
// Mirrors the agreed names only. Not part of Labeling's design.

/// Stand-in image (see ImageCodecs).
public struct RGBImage: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// RGB interleaved, row-major.
    public var pixels: [UInt8]
    /// Wraps pixels.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// Stand-in error (see ImageCodecs).
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The image file.
    public let path: String
    /// One-line reason.
    public let reason: String
    /// Makes an error.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    /// "path: reason".
    public var description: String { "\(path): \(reason)" }
}

import Foundation

/// Stand-in loader: accepts files starting with PNG or JPEG magic and returns a 1×1 black image.
public enum ImageLoader {
    /// Loads (pretends to) an image.
    public static func load(path: String) throws(ImageError) -> RGBImage {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImageError(path: path, reason: "cannot read file")
        }
        let bytes = [UInt8](data.prefix(8))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) || bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            return RGBImage(width: 1, height: 1, pixels: [0, 0, 0])
        }
        throw ImageError(path: path, reason: "not a PNG or JPEG file")
    }
}
