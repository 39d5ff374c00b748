import Foundation
import Workbench
import XCTest
@testable import WorkbenchCLI

/// The detector's score table that `train`, `evaluate` and `inspect` print: an undefined value reads "—" (issue 44)
/// and keeps its column.
final class DetectorScoresRenderingTests: XCTestCase {
    func testUndefinedValuesReadAsAnEmDashInTheirColumns() throws {
        // cat: an object, no box at the threshold (precision undefined, F1 0); dog: nothing to find and no box (AP,
        // precision and F1 undefined); the overall row from a report written before reported boxes were counted.
        let json = """
            {"imageCount": 2, "objectCount": 1, "meanAveragePrecision50": 1, "meanAveragePrecision": 0.5, "threshold": 0.4,
             "recall": 0, "labels": [
              {"label": "cat", "groundTruthCount": 1, "averagePrecision50": 1, "averagePrecision": 0.5, "recall": 0, "reportedBoxes": 0},
              {"label": "dog", "groundTruthCount": 0, "recall": 0, "reportedBoxes": 0}]}
            """
        let scores = try JSONDecoder().decode(DetectorScores.self, from: Data(json.utf8))
        let lines = DetectorTrainingRendering.scores(scores, title: "Testing").split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.first { $0.hasPrefix("label ") })
        func row(_ name: String) throws -> [String] {
            let line = try XCTUnwrap(lines.first { $0.hasPrefix(name + " ") }, "\(lines)")
            XCTAssertEqual(line.count, header.count, "\(name)'s row keeps the header's columns: \(line)")
            return line.split(separator: " ").map(String.init)
        }
        XCTAssertEqual(try row("cat"), ["cat", "1", "0", "1.000", "0.500", "—", "0.000", "0.000"])
        XCTAssertEqual(try row("dog"), ["dog", "0", "0", "—", "—", "—", "0.000", "—"])
        XCTAssertEqual(try row("all"), ["all", "1", "—", "1.000", "0.500", "—", "0.000", "0.000"])
        XCTAssertFalse(lines.contains { $0.split(separator: " ").contains("-") }, "no ASCII hyphen stands for a value")
    }
}
