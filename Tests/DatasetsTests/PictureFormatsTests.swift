import Datasets
import XCTest

/// The formats beyond JPEG and PNG in dataset scans (issue 44, defect 5): WebP, HEIC/HEIF, TIFF, GIF and BMP files
/// are pictures by extension (any case) or by content, and files passed over are counted by kind.
final class PictureFormatsTests: XCTestCase {
    /// The first bytes of each new format, as ImageCodecs sniffs them.
    static let signatures: [String: [UInt8]] = [
        "webp": Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8),
        "heic": [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8),
        "tiff": [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8],
        "gif": Array("GIF89a".utf8) + [1, 0, 1, 0],
        "bmp": [0x42, 0x4D] + [UInt8](repeating: 0, count: 12) + [124, 0, 0, 0],
    ]

    func testEveryPictureExtensionIsKeptWhateverItsCase() throws {
        let builder = try FolderBuilder(self)
        let names = ["a.webp", "b.HEIC", "c.heif", "d.tif", "e.TIFF", "f.gif", "g.Bmp", "h.WebP"]
        for name in names { try builder.file("cat/" + name, Array("not decoded by the scan \(name)".utf8)) }
        let folder = try ImageFolder.scan(path: builder.root)
        XCTAssertEqual(folder.files(label: "cat")?.map { ($0 as NSString).lastPathComponent }, names)
        XCTAssertEqual(folder.skipped, [])
    }

    func testPictureContentIsKeptWhateverItsName() throws {
        let builder = try FolderBuilder(self)
        for (format, bytes) in Self.signatures { try builder.file("cat/\(format)-picture.dat", bytes + Array("x".utf8)) }
        try builder.file("cat/riff-but-wave.dat", Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8))
        try builder.file("cat/mp4.dat", [0, 0, 0, 24] + Array("ftypisom".utf8) + [0, 0, 0, 0] + Array("isomavc1".utf8))
        let folder = try ImageFolder.scan(path: builder.root)
        XCTAssertEqual(
            folder.files(label: "cat")?.map { ($0 as NSString).lastPathComponent },
            ["bmp-picture.dat", "gif-picture.dat", "heic-picture.dat", "tiff-picture.dat", "webp-picture.dat"])
        XCTAssertEqual(folder.skipped.map { ($0.path as NSString).lastPathComponent }, ["mp4.dat", "riff-but-wave.dat"])
    }

    func testAWebPAmongJPEGsIsKept() throws {
        // Before: the .webp was left out quietly, listed only by --verbose.
        let builder = try FolderBuilder(self)
        try builder.images("cat", count: 3)
        try builder.file("cat/4.webp", Self.signatures["webp"]!)
        try builder.images("dog", count: 2)
        let layout = try DatasetLayout.resolve(path: builder.root)
        XCTAssertEqual(layout.training.files(label: "cat")?.count, 4)
        XCTAssertEqual(layout.skipped, [])
        XCTAssertEqual(DatasetWarnings.check(layout), [])
    }

    func testAFolderOfOnlyWebPFilesResolves() throws {
        // Before: "label 'Fish' has no image files (JPEG or PNG)".
        let builder = try FolderBuilder(self)
        for label in ["Fish", "Bird"] {
            for index in 1...3 { try builder.file("\(label)/\(index).webp", Self.signatures["webp"]! + [UInt8(index)]) }
        }
        let layout = try DatasetLayout.resolve(path: builder.root)
        XCTAssertEqual(layout.labels, ["Bird", "Fish"])
        XCTAssertEqual(layout.training.imageCount, 6)
    }

    func testALabelOfUnreadableTypesCountsTheSkippedFilesByKind() throws {
        let builder = try FolderBuilder(self)
        try builder.images("Cat", count: 2)
        for index in 1...28 { try builder.file("Fish/\(index).xyz", Array("raw \(index)".utf8)) }
        XCTAssertThrowsError(try DatasetLayout.resolve(path: builder.root)) { error in
            XCTAssertEqual(
                "\(error)",
                builder.root + "/Fish: label 'Fish' has no pictures Workbench can read "
                    + "(JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP): 28 files skipped (28 .xyz)")
        }

        let mixed = try FolderBuilder(self)
        try mixed.images("Cat", count: 2)
        for index in 1...20 { try mixed.file("Fish/\(index).XYZ", [1]) }
        for index in 1...8 { try mixed.file("Fish/deeper/raw\(index)", [2]) }
        try mixed.folder("Empty")
        XCTAssertThrowsError(try DatasetLayout.resolve(path: mixed.root)) { error in
            XCTAssertEqual(
                "\(error)",
                mixed.root + "/Empty: label 'Empty' has no pictures Workbench can read "
                    + "(JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP): the folder holds no files")
        }
        try FileManager.default.removeItem(atPath: mixed.root + "/Empty")
        XCTAssertThrowsError(try DatasetLayout.resolve(path: mixed.root)) { error in
            XCTAssertTrue("\(error)".hasSuffix(": 28 files skipped (20 .xyz, 8 with no extension)"), "\(error)")
        }
    }

    func testFilesPassedOverInsideLabelsAreAWarningCountedByKind() throws {
        let builder = try FolderBuilder(self)
        try builder.images("cat", count: 2)
        try builder.images("dog", count: 2)
        try builder.file("cat/scan.xyz", [1])
        try builder.file("dog/scan.xyz", [2])
        try builder.file("dog/notes.txt", Array("hello".utf8))
        try builder.file("README.md", Array("# outside the labels: not counted".utf8))
        let layout = try DatasetLayout.resolve(path: builder.root)
        let warnings = DatasetWarnings.check(layout)
        XCTAssertEqual(
            warnings.map(\.description),
            [
                "3 files skipped (2 .xyz, 1 .txt) in the training label folders: not pictures Workbench can read "
                    + "(JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP)"
            ])
        XCTAssertEqual(
            SkippedFiles.summary([SkippedFile(path: builder.root + "/cat/scan.xyz", reason: "")]),
            "1 file skipped (1 .xyz)")
    }
}
