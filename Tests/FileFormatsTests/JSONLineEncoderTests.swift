import FileFormats
import Foundation
import XCTest

/// `JSONWriter`'s line layout (`JSONLineEncoder`): the bytes JSON Lines output had when it was written by hand, now from `Encodable` values.
final class JSONLineEncoderTests: XCTestCase {
    private struct Frame: Encodable {
        var second: Double
        var label: String
        var confidence: Float
        var verdict: String?
        var threshold: Double?
    }

    /// Members named at run time, in the order given.
    private struct Ordered: Encodable {
        var pairs: [(String, Float)]
        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in pairs { try container.encode(value, forKey: Key(stringValue: key)) }
        }
    }

    private struct Line: Encodable {
        var path: String
        var abstained: Bool
        var count: Int
        var frames: [Frame]
        var probabilities: Ordered
        var features: [Float]
    }

    func testMembersInDeclarationOrderNumbersAsJSONTextWritesThem() throws {
        let line = Line(
            path: "a/b \"c\"\n", abstained: false, count: 3,
            frames: [
                Frame(second: 0, label: "cat", confidence: 0.91234565),
                Frame(second: 1.5, label: "Unsure", confidence: 1e-7, verdict: "cat", threshold: 0.6),
            ],
            probabilities: Ordered(pairs: [("zebra", 0.25), ("ant", 0.75)]),
            features: [0, 1, .nan, -2.5])
        XCTAssertEqual(
            try JSONWriter.text(line, layout: .line),
            #"{"path":"a/b \"c\"\n","abstained":false,"count":3,"#
                + #""frames":[{"second":0.0,"label":"cat","confidence":0.91234565},"#
                + #"{"second":1.5,"label":"Unsure","confidence":1e-07,"verdict":"cat","threshold":0.6}],"#
                + #""probabilities":{"zebra":0.25,"ant":0.75},"features":[0.0,1.0,null,-2.5]}"#)
    }

    func testEmptyContainersAndTopLevelValues() throws {
        XCTAssertEqual(try JSONWriter.text([String: Int](), layout: .line), "{}")
        XCTAssertEqual(try JSONWriter.text([Int](), layout: .line), "[]")
        XCTAssertEqual(try JSONWriter.text(Ordered(pairs: []), layout: .line), "{}")
        XCTAssertEqual(try JSONWriter.text("x/y", layout: .line), #""x/y""#)
        XCTAssertEqual(try JSONWriter.text([Double.infinity, 2], layout: .line), "[null,2.0]")
        XCTAssertEqual(try JSONWriter.text([Int?.none, 4], layout: .line), "[null,4]")
    }

    func testOutputIsJSONThatParsesBackToTheValues() throws {
        let text = try JSONWriter.text(Ordered(pairs: [("é \u{1}", 0.5)]), layout: .line)
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Double])
        XCTAssertEqual(parsed, ["é \u{1}": 0.5])
    }
}
