import FileFormats
import Foundation
import XCTest

/// `OutputConflicts`: an output that is an input or another output, by device and inode or by resolved path.
final class OutputConflictsTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "output-conflicts-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/movie.mp4", contents: Data("movie".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/other.mp4", contents: Data("movie".utf8)))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The refusal's line, or nil when the outputs are accepted.
    private func refusal(inputs: [String], outputs: [String]) -> String? {
        do {
            try OutputConflicts.check(inputs: inputs, outputs: outputs)
            return nil
        } catch {
            return error.description
        }
    }

    func testAnOutputThatIsAnInputIsRefusedNamingBoth() throws {
        let movie = folder + "/movie.mp4"
        XCTAssertEqual(
            refusal(inputs: [movie], outputs: [movie]),
            "\(movie): is the same file as the input \(movie): an output must not replace an input")
        // Another name of the same file: a symbolic link, a hard link, "./" and ".." in the path.
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.mp4", withDestinationPath: "movie.mp4")
        try FileManager.default.linkItem(atPath: movie, toPath: folder + "/hard.mp4")
        for name in [folder + "/link.mp4", folder + "/hard.mp4", folder + "/./movie.mp4", folder + "/sub/../movie.mp4"] {
            XCTAssertEqual(
                refusal(inputs: [movie], outputs: [name]),
                "\(name): is the same file as the input \(movie): an output must not replace an input")
        }
        // Same contents, another file: accepted.
        XCTAssertNil(refusal(inputs: [movie], outputs: [folder + "/other.mp4"]))
        // A folder given as an input is one file too (a results folder that is a frames folder).
        XCTAssertNotNil(refusal(inputs: [folder + "/sub"], outputs: [folder + "/sub/"]))
    }

    func testTwoOutputsInOneFileAreRefusedEvenBeforeTheyExist() throws {
        let page = folder + "/page.html"
        XCTAssertEqual(
            refusal(inputs: [], outputs: [page, folder + "/sub/../page.html"]),
            "\(folder!)/sub/../page.html: is the same file as the output \(page): each output needs a file of its own")
        // A dangling link names the file it will create.
        try FileManager.default.createSymbolicLink(atPath: folder + "/page-link.html", withDestinationPath: "page.html")
        XCTAssertNotNil(refusal(inputs: [], outputs: [page, folder + "/page-link.html"]))
        XCTAssertNil(refusal(inputs: [], outputs: [page, folder + "/page.vtt", folder + "/sub/page.html"]))
        // A relative name against the same file's absolute name, in the working directory.
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        XCTAssertNotNil(refusal(inputs: [], outputs: ["new.json", folder + "/new.json"]))
        XCTAssertNotNil(refusal(inputs: ["movie.mp4"], outputs: [folder + "/movie.mp4"]))
    }

    func testDevicesAreWrittenThroughAndNeverClash() {
        XCTAssertNil(refusal(inputs: [], outputs: ["/dev/null", "/dev/null"]))
        XCTAssertNil(refusal(inputs: ["/dev/null"], outputs: ["/dev/null"]))
        XCTAssertNil(refusal(inputs: [folder + "/movie.mp4"], outputs: []))
    }
}
