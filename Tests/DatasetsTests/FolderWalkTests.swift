import Datasets
import Foundation
import XCTest

/// The walk loses nothing silently: names that are not UTF-8, FIFOs, devices and broken links are listed as
/// unreadable, and each real folder is walked once however many links lead to it.
final class FolderWalkTests: XCTestCase {
    /// Creates a file whose name is raw bytes (not necessarily UTF-8) in `folder`.
    private func createFile(in folder: String, rawName: [UInt8], bytes: [UInt8]) throws {
        var path = Array(folder.utf8) + [UInt8(ascii: "/")] + rawName
        path.append(0)
        let descriptor = path.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(descriptor, 0, "cannot create the test file")
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    func testNamesThatAreNotUTF8AreReportedWithEscapesNotDropped() throws {
        let builder = try FolderBuilder(self)
        try builder.image("cat/1.jpg")
        try createFile(in: builder.root + "/cat", rawName: Array("caf".utf8) + [0xE9] + Array(".jpg".utf8), bytes: FolderBuilder.jpegBytes("latin-1"))
        try createFile(in: builder.root + "/cat", rawName: [0xFF, 0xFE], bytes: [])
        let folder = try ImageFolder.scan(path: builder.root)
        XCTAssertEqual(folder.files(label: "cat"), [builder.root + "/cat/1.jpg"])
        let reason = "name is not valid UTF-8, so it cannot be opened (shown with \\x escapes); rename it"
        // Natural order of the names as shown: "\\" sorts before "c".
        XCTAssertEqual(
            folder.unreadable,
            [
                SkippedFile(path: builder.root + "/cat/\\xFF\\xFE", reason: reason),
                SkippedFile(path: builder.root + "/cat/caf\\xE9.jpg", reason: reason),
            ])
        XCTAssertEqual(folder.skipped, [])
    }

    func testFIFOsDevicesAndBrokenLinksAreUnreadableAndNeverOpened() throws {
        let builder = try FolderBuilder(self)
        try builder.image("cat/1.jpg")
        XCTAssertEqual(mkfifo(builder.root + "/cat/x.png", 0o644), 0)
        XCTAssertEqual(mkfifo(builder.root + "/cat/pipe", 0o644), 0)
        try FileManager.default.createSymbolicLink(atPath: builder.root + "/cat/zero.jpg", withDestinationPath: "/dev/zero")
        try FileManager.default.createSymbolicLink(atPath: builder.root + "/cat/gone.jpg", withDestinationPath: builder.root + "/nowhere.jpg")
        // A FIFO opened for reading would block this scan forever; the test finishing is part of what it checks.
        let folder = try ImageFolder.scan(path: builder.root)
        XCTAssertEqual(folder.files(label: "cat"), [builder.root + "/cat/1.jpg"])
        XCTAssertEqual(
            folder.unreadable,
            [
                SkippedFile(path: builder.root + "/cat/gone.jpg", reason: "broken symbolic link (its target does not exist)"),
                SkippedFile(path: builder.root + "/cat/pipe", reason: "not a regular file (a FIFO); not opened"),
                SkippedFile(path: builder.root + "/cat/x.png", reason: "not a regular file (a FIFO); not opened"),
                SkippedFile(path: builder.root + "/cat/zero.jpg", reason: "not a regular file (a character device); not opened"),
            ])
    }

    func testEachRealFolderIsWalkedOnceWhateverLinksLeadToIt() throws {
        let builder = try FolderBuilder(self)
        try builder.image("cat/photos/1.jpg")
        try builder.image("cat/photos/2.jpg")
        // A loop two levels up, and a second way into the same folder.
        try FileManager.default.createSymbolicLink(atPath: builder.root + "/cat/photos/up", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: builder.root + "/cat/again", withDestinationPath: "photos")
        var walk = FolderWalk()
        let files = try walk.imageFiles(under: builder.root + "/cat")
        XCTAssertEqual(files.map { ($0 as NSString).lastPathComponent }, ["1.jpg", "2.jpg"], "each image once: \(files)")
        XCTAssertEqual(walk.skipped.map(\.reason), Array(repeating: "folder already scanned (symbolic link loop?)", count: 2))
        XCTAssertEqual(walk.unreadable, [])
    }

    func testTrailingSlashIsNotDoubled() throws {
        let builder = try FolderBuilder(self)
        try builder.image("a/1.jpg")
        var walk = FolderWalk()
        XCTAssertEqual(try walk.imageFiles(under: builder.root + "/a/"), [builder.root + "/a/1.jpg"])
    }

    func testUnreadableEntriesReachTheLayout() throws {
        let builder = try FolderBuilder(self)
        try builder.images("cat", count: 2, prefix: "Training Data/")
        try builder.images("dog", count: 2, prefix: "Training Data/")
        try builder.images("cat", count: 1, prefix: "Testing Data/")
        try builder.images("dog", count: 1, prefix: "Testing Data/")
        XCTAssertEqual(mkfifo(builder.root + "/Testing Data/dog/x.jpg", 0o644), 0)
        let layout = try DatasetLayout.resolve(path: builder.root)
        XCTAssertEqual(layout.unreadable.map(\.path), [builder.root + "/Testing Data/dog/x.jpg"])
    }
}
