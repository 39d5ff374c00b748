import Foundation
import XCTest

/// Builds small folder trees of fake image files in a temporary folder removed after the test.
struct FolderBuilder {
    let root: String

    init(_ testCase: XCTestCase) throws {
        root = NSTemporaryDirectory() + "datasets-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let root = root
        testCase.addTeardownBlock { try? FileManager.default.removeItem(atPath: root) }
    }

    /// A file whose first bytes are the JPEG signature; `seed` makes its content unique.
    static func jpegBytes(_ seed: String) -> [UInt8] { [0xFF, 0xD8, 0xFF, 0xE0] + Array("jpeg \(seed)".utf8) }
    /// A file whose first bytes are the PNG signature.
    static func pngBytes(_ seed: String) -> [UInt8] { [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("png \(seed)".utf8) }

    /// Writes `bytes` at `relativePath`, creating folders on the way; returns the full path.
    @discardableResult
    func file(_ relativePath: String, _ bytes: [UInt8]) throws -> String {
        let path = root + "/" + relativePath
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Writes a unique JPEG-looking file.
    @discardableResult
    func image(_ relativePath: String, seed: String? = nil) throws -> String {
        try file(relativePath, Self.jpegBytes(seed ?? relativePath))
    }

    /// Creates an empty folder.
    func folder(_ relativePath: String) throws {
        try FileManager.default.createDirectory(atPath: root + "/" + relativePath, withIntermediateDirectories: true)
    }

    /// `count` images named 1.jpg … under `label`, below `prefix` when given.
    func images(_ label: String, count: Int, prefix: String = "") throws {
        for index in 1...count { try image("\(prefix)\(label)/\(index).jpg") }
    }
}
