import FileFormats
import Foundation
import XCTest

/// `JSONWriter`'s document layout: the phase file's layout, byte for byte as it was written by hand before
/// (a member a line, a phase a line), and valid JSON whatever the strings and numbers.
final class JSONDocumentLayoutTests: XCTestCase {
    private struct Phase: Encodable {
        var label: String
        var start: Double
        var end: Double
        var confidence: Double?
    }

    private struct Timeline: Encodable {
        var video: String
        var order: [String]
        var phases: [Phase]
    }

    func testAPhaseFileHasAMemberALineAndAPhaseALine() throws {
        let timeline = Timeline(
            video: "swing \"one\".mp4", order: ["address", "swing"],
            phases: [
                Phase(label: "address", start: 0, end: 0.5, confidence: 0.75),
                Phase(label: "swing", start: 0.5, end: 2, confidence: nil),
            ])
        let expected = """
            {
              "video": "swing \\"one\\".mp4",
              "order": ["address", "swing"],
              "phases": [
                {"label": "address", "start": 0.0, "end": 0.5, "confidence": 0.75},
                {"label": "swing", "start": 0.5, "end": 2.0}
              ]
            }

            """
        XCTAssertEqual(try JSONWriter.text(timeline, layout: .document), expected)
    }

    func testTheDocumentParsesBackWithHostileStringsAndNonFiniteNumbers() throws {
        let timeline = Timeline(
            video: "a\n\u{2067}b\t\\", order: ["\u{0}", ""],
            phases: [Phase(label: "\u{1F3CC}", start: .nan, end: .infinity, confidence: 1e-300)])
        let text = try JSONWriter.text(timeline, layout: .document)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(object["video"] as? String, "a\n\u{2067}b\t\\")
        XCTAssertEqual(object["order"] as? [String], ["\u{0}", ""])
        let phase = try XCTUnwrap((object["phases"] as? [[String: Any]])?.first)
        XCTAssertTrue(phase["start"] is NSNull, "NaN is written as null")
        XCTAssertEqual(phase["confidence"] as? Double, 1e-300)
    }

    func testTheLineLayoutIsUnchanged() throws {
        XCTAssertEqual(
            try JSONWriter.text(Timeline(video: "v", order: ["a"], phases: []), layout: .line),
            #"{"video":"v","order":["a"],"phases":[]}"#)
    }
}
