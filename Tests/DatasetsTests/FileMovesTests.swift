import Datasets
import Foundation
import XCTest
import _TestSupport

/// Moving files out of a dataset and back: byte for byte, all or nothing, and never into the dataset or onto a file.
final class FileMovesTests: XCTestCase {
    private var folder: URL!
    private var dataset: String { folder.appendingPathComponent("data").path }
    private var aside: String { folder.appendingPathComponent("aside").path }

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder()
        for (relative, text) in [("Training Data/cat/1.png", "one"), ("Training Data/dog/2.png", "two"), ("Testing Data/cat/3.png", "three")] {
            let url = URL(fileURLWithPath: dataset + "/" + relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    /// Every file under `root` with its bytes.
    private func contents(_ root: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root) else { return files }
        for case let relative as String in walker {
            let path = root + "/" + relative
            if !FolderWalk.isFolder(path) { files[relative] = try Data(contentsOf: URL(fileURLWithPath: path)) }
        }
        return files
    }

    func testMoveAndUndoRoundTripByteForByte() throws {
        let before = try contents(dataset)
        let paths = [dataset + "/Training Data/dog/2.png", dataset + "/Testing Data/cat/3.png"]
        let moves = try FileMoves.plan(paths: paths, roots: [dataset], into: aside)
        XCTAssertEqual(moves.map(\.to), [aside + "/Training Data/dog/2.png", aside + "/Testing Data/cat/3.png"])
        try FileMoves.perform(moves)
        XCTAssertEqual(try contents(dataset).keys.sorted(), ["Training Data/cat/1.png"])
        XCTAssertEqual(try contents(aside)["Testing Data/cat/3.png"], Data("three".utf8))
        try FileMoves.undo(moves)
        XCTAssertEqual(try contents(dataset), before)
        XCTAssertEqual(try contents(aside), [:], "nothing is left behind")
    }

    /// A file that vanished between the plan and the move: the one moved before it goes back, the folders the
    /// move made are removed, and the error names the file.
    func testAFailureHalfWayIsUndone() throws {
        let first = dataset + "/Training Data/dog/2.png", second = dataset + "/Testing Data/cat/3.png"
        let moves = try FileMoves.plan(paths: [first, second], roots: [dataset], into: aside)
        try FileManager.default.removeItem(atPath: second)
        let before = try contents(dataset)
        XCTAssertThrowsError(try FileMoves.perform(moves)) { error in
            XCTAssertTrue("\(error)".hasPrefix(second + ": cannot move"), "\(error)")
            XCTAssertTrue("\(error)".contains("the 1 file(s) moved before it are back"), "\(error)")
        }
        XCTAssertEqual(try contents(dataset), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: aside + "/Training Data"), "the folders made are gone again")
    }

    func testRefusesADestinationInsideTheDatasetOrAFile() throws {
        let inside = dataset + "/Training Data/aside"
        XCTAssertThrowsError(try FileMoves.refuseDestination(inside, roots: [dataset])) { error in
            XCTAssertEqual("\(error)", "\(inside): is inside the dataset folder \(dataset): moved pictures would still be in it")
        }
        XCTAssertThrowsError(try FileMoves.refuseDestination(dataset, roots: [dataset]))
        let file = folder.appendingPathComponent("decoy.txt").path
        try Data("decoy".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try FileMoves.plan(paths: [dataset + "/Training Data/cat/1.png"], roots: [dataset], into: file)) { error in
            XCTAssertEqual("\(error)", "\(file): is a file, not a folder to move pictures into")
        }
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "decoy")
        // A destination already there: refused before anything moves.
        try FileManager.default.createDirectory(atPath: aside + "/Training Data/cat", withIntermediateDirectories: true)
        try Data("other".utf8).write(to: URL(fileURLWithPath: aside + "/Training Data/cat/1.png"))
        XCTAssertThrowsError(try FileMoves.plan(paths: [dataset + "/Training Data/cat/1.png"], roots: [dataset], into: aside))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dataset + "/Training Data/cat/1.png"))
    }

    func testExcludedPathsFromAListAndFromDoctorsJSON() throws {
        let list = folder.appendingPathComponent("list.txt").path
        try Data("# set aside\n\(dataset)/Training Data/cat/1.png\n\n./x/../y.png\n".utf8).write(to: URL(fileURLWithPath: list))
        XCTAssertEqual(
            try ExcludedPaths.read(path: list),
            [dataset + "/Training Data/cat/1.png", ExcludedPaths.standardized("y.png")])
        let report = folder.appendingPathComponent("findings.json").path
        let json = """
            {"labelIssues": [{"path": "a/1.png"}], "duplicates": [{"paths": ["b/2.png", "c/3.png", "d/4.png"]}],
             "outliers": [{"path": "e/5.png"}], "labels": []}
            """
        try Data(json.utf8).write(to: URL(fileURLWithPath: report))
        XCTAssertEqual(try ExcludedPaths.read(path: report), Set(["a/1.png", "c/3.png", "d/4.png", "e/5.png"].map(ExcludedPaths.standardized)))
        XCTAssertThrowsError(try ExcludedPaths.read(path: folder.appendingPathComponent("missing").path))
    }
}
