import Foundation
import XCTest
import _TestSupport

/// `workbench doctor` through the release binary on the tiny cat/espresso dataset: the help's examples, the move and
/// its undo byte for byte, `train --exclude` of doctor's JSON, and bad input as one line each with nothing moved.
final class DoctorCommandTests: TinyDatasetTestCase {
    private var training: URL { dataset.appendingPathComponent("Training Data") }

    /// Every file under `root` with its bytes.
    private func snapshot(_ root: URL) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return contents }
        for case let relative as String in walker {
            let url = root.appendingPathComponent(relative)
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true { contents[relative] = try Data(contentsOf: url) }
        }
        return contents
    }

    func testHelpTeachesByExample() throws {
        let help = try run(["doctor", "--help"])
        XCTAssertEqual(help.status, 0)
        for example in ["workbench doctor datasets/drawings", "--json > findings.json", "--move-to Set-aside", "--undo Set-aside/doctor-moves.json"] {
            XCTAssertTrue(help.standardOutput.contains(example), "help shows '\(example)'")
        }
        XCTAssertTrue(help.standardOutput.contains("docs/doctor.md"))
    }

    /// A planted exact copy in testing is moved aside (the training original stays) and put back byte for byte;
    /// the dataset is otherwise untouched, and doctor's JSON excludes the copy from training.
    func testMoveAndUndoRoundTripAndExclude() throws {
        try FileManager.default.copyItem(
            at: training.appendingPathComponent("cat/1.jpg"), to: dataset.appendingPathComponent("Testing Data/cat/dup.jpg"))
        let before = try snapshot(dataset)
        let aside = folder.appendingPathComponent("aside")

        let findings = try run(["doctor", dataset.path, "--json", "--no-html"])
        XCTAssertEqual(findings.status, 0, findings.standardError)
        XCTAssertEqual(try snapshot(dataset), before, "doctor alone changes nothing")
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(findings.standardOutput.utf8)) as? [String: Any])
        let duplicates = try XCTUnwrap(report["duplicates"] as? [[String: Any]])
        let exact = try XCTUnwrap(duplicates.first { $0["kind"] as? String == "exact" })
        XCTAssertEqual((exact["paths"] as? [String])?.last, dataset.appendingPathComponent("Testing Data/cat/dup.jpg").path)
        XCTAssertEqual(exact["leak"] as? Bool, true)

        let moved = try run(["doctor", dataset.path, "--no-html", "--move-to", aside.path, "--move", "copies", "--min-score", "1"])
        XCTAssertEqual(moved.status, 0, moved.standardError)
        XCTAssertTrue(
            moved.standardOutput.contains("to put them back: workbench doctor --undo \(aside.path)/doctor-moves.json"), moved.standardOutput)
        XCTAssertNil(try snapshot(dataset)["Testing Data/cat/dup.jpg"])
        XCTAssertNotNil(try snapshot(dataset)["Training Data/cat/1.jpg"], "the first file of a copy stays")
        XCTAssertEqual(try snapshot(aside)["Testing Data/cat/dup.jpg"], before["Testing Data/cat/dup.jpg"])

        let undone = try run(["doctor", "--undo", aside.appendingPathComponent("doctor-moves.json").path])
        XCTAssertEqual(undone.status, 0, undone.standardError)
        XCTAssertEqual(try snapshot(dataset), before, "byte for byte as before")

        // train without the copy doctor found: one testing picture fewer.
        let findingsFile = folder.appendingPathComponent("findings.json")
        try Data(findings.standardOutput.utf8).write(to: findingsFile)
        let excluded = try run([
            "train", dataset.path, "--exclude", findingsFile.path, "-o", folder.appendingPathComponent("C.wbmodel").path, "--no-html", "--json",
        ])
        XCTAssertEqual(excluded.status, 0, excluded.standardError)
        XCTAssertTrue(excluded.standardError.contains("left out"), excluded.standardError)
        let trained = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(excluded.standardOutput.utf8)) as? [String: Any])
        let testing = try XCTUnwrap(trained["testing"] as? [String: Any])
        XCTAssertEqual(testing["count"] as? Int, 4, "dup.jpg is left out of the 5 testing pictures")
    }

    /// Bad input: one clear line each, non-zero, nothing moved.
    func testBadInputIsOneLineAndMovesNothing() throws {
        let before = try snapshot(dataset)
        let inside = training.appendingPathComponent("aside").path
        let intoDataset = try run(["doctor", dataset.path, "--no-html", "--move-to", inside])
        XCTAssertNotEqual(intoDataset.status, 0)
        XCTAssertEqual(
            intoDataset.errorLines.last, "workbench: \(inside): is inside the dataset folder \(dataset.path): moved pictures would still be in it")
        let decoy = folder.appendingPathComponent("decoy.txt")
        try Data("decoy".utf8).write(to: decoy)
        let ontoFile = try run(["doctor", dataset.path, "--no-html", "--move-to", decoy.path])
        XCTAssertNotEqual(ontoFile.status, 0)
        XCTAssertEqual(ontoFile.errorLines.last, "workbench: \(decoy.path): is a file, not a folder to move pictures into")
        XCTAssertEqual(try String(contentsOf: decoy, encoding: .utf8), "decoy")
        XCTAssertEqual(try snapshot(dataset), before)

        let empty = folder.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try run(["doctor", empty.path, "--no-html"])
        XCTAssertNotEqual(none.status, 0)
        XCTAssertEqual(none.errorLines.count, 1, none.standardError)
        XCTAssertTrue(none.errorLines.first?.hasPrefix("workbench: \(empty.path)") == true, none.standardError)

        let oneLabel = folder.appendingPathComponent("one")
        try FileManager.default.createDirectory(at: oneLabel, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: training.appendingPathComponent("cat"), to: oneLabel.appendingPathComponent("cat"))
        let single = try run(["doctor", oneLabel.path, "--no-html"])
        XCTAssertNotEqual(single.status, 0)
        XCTAssertEqual(single.errorLines.count, 1, single.standardError)

        let badKind = try run(["doctor", dataset.path, "--move-to", folder.appendingPathComponent("x").path, "--move", "labels,typos"])
        XCTAssertNotEqual(badKind.status, 0)
        XCTAssertTrue(
            badKind.standardError.contains("--move takes labels, copies or outliers separated by commas, not 'typos'"), badKind.standardError)
    }
}
