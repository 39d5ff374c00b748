import Datasets
import XCTest

final class ImageFolderTests: XCTestCase {
    func testLabelsAndFilesInNaturalOrderWithNestedImages() throws {
        let builder = try FolderBuilder(self)
        try builder.image("10/b.jpg")
        try builder.image("2/10.jpg")
        try builder.image("2/9.png")
        try builder.image("2/sub/1.jpg")
        try builder.image("2/Sub2/deeper/x.JPG")
        try builder.image("apple/1.jpeg")
        try builder.image("Banana/1.jpg")
        let folder = try ImageFolder.scan(path: builder.root)
        XCTAssertEqual(folder.labels, ["2", "10", "apple", "Banana"])
        XCTAssertEqual(
            folder.files(label: "2"),
            [
                builder.root + "/2/9.png", builder.root + "/2/10.jpg", builder.root + "/2/sub/1.jpg", builder.root + "/2/Sub2/deeper/x.JPG",
            ])
        XCTAssertEqual(folder.imageCount, 7)
        XCTAssertEqual(folder.skipped, [])
    }

    func testHiddenEntriesAreIgnoredAndOtherFilesReported() throws {
        let builder = try FolderBuilder(self)
        try builder.image("cat/1.jpg")
        try builder.image("cat/.hidden.jpg")
        try builder.image(".git/objects/a.jpg")
        try builder.image("cat/.thumbs/2.jpg")
        try builder.file("cat/notes.txt", Array("hello".utf8))
        try builder.file("cat/empty", [])
        try builder.file("README.md", Array("# data".utf8))
        let folder = try ImageFolder.scan(path: builder.root)
        XCTAssertEqual(folder.labels, ["cat"])
        XCTAssertEqual(folder.files(label: "cat"), [builder.root + "/cat/1.jpg"])
        XCTAssertEqual(
            folder.skipped,
            [
                SkippedFile(path: builder.root + "/cat/empty", reason: "not a picture Workbench can read (no extension)"),
                SkippedFile(path: builder.root + "/cat/notes.txt", reason: "not a picture Workbench can read (extension .txt)"),
                SkippedFile(path: builder.root + "/README.md", reason: "not inside a label folder"),
            ])
    }

    func testMagicBytesOrImageExtensionMakeAnImage() throws {
        let builder = try FolderBuilder(self)
        try builder.file("dog/photo", FolderBuilder.jpegBytes("a"))  // JPEG content, no extension: included
        try builder.file("dog/picture.bin", FolderBuilder.pngBytes("b"))  // PNG content, odd extension: included
        try builder.file("dog/broken.jpg", Array("not really a jpeg".utf8))  // image extension, wrong content: included
        try builder.file("dog/fake.png", [])  // empty file with an image extension: included
        try builder.file("dog/almost", [0xFF, 0xD8, 0x00])  // wrong magic, no extension: skipped
        let folder = try ImageFolder.scan(path: builder.root)
        XCTAssertEqual(
            folder.files(label: "dog")?.map { ($0 as NSString).lastPathComponent },
            ["broken.jpg", "fake.png", "photo", "picture.bin"])
        XCTAssertEqual(folder.skipped.map { ($0.path as NSString).lastPathComponent }, ["almost"])
    }

    func testSymbolicLinkLoopIsCut() throws {
        let builder = try FolderBuilder(self)
        try builder.image("cat/1.jpg")
        try FileManager.default.createSymbolicLink(atPath: builder.root + "/cat/loop", withDestinationPath: builder.root + "/cat")
        let folder = try ImageFolder.scan(path: builder.root)
        XCTAssertEqual(folder.files(label: "cat"), [builder.root + "/cat/1.jpg"])
        XCTAssertEqual(folder.skipped.map(\.reason), ["folder already scanned (symbolic link loop?)"])
    }

    func testMissingFolderAndFile() throws {
        let builder = try FolderBuilder(self)
        XCTAssertThrowsError(try ImageFolder.scan(path: builder.root + "/nope")) { error in
            XCTAssertEqual("\(error)", builder.root + "/nope: folder does not exist")
        }
        let file = try builder.image("a.jpg")
        XCTAssertThrowsError(try ImageFolder.scan(path: file)) { error in
            XCTAssertEqual("\(error)", file + ": not a folder")
        }
    }

    func testScanIsDeterministic() throws {
        let builder = try FolderBuilder(self)
        for index in (1...30).reversed() { try builder.image("c\(index % 3)/img\(index).jpg") }
        XCTAssertEqual(try ImageFolder.scan(path: builder.root), try ImageFolder.scan(path: builder.root))
        XCTAssertEqual(
            try ImageFolder.scan(path: builder.root).files(label: "c0")?.prefix(3).map { ($0 as NSString).lastPathComponent },
            ["img3.jpg", "img6.jpg", "img9.jpg"])
    }
}
