import FileFormats
import XCTest

/// The JSON reader's syntax errors stay one printable line whatever byte they stop at.
final class JSONParserTests: XCTestCase {
    func testAnUnexpectedByteIsNamedByNumberUnlessItIsPrintable() {
        for (input, expected) in [
            ("[1, \u{1B}]", "unexpected byte 0x1B"), ("[1, \u{7F}]", "unexpected byte 0x7F"),
            ("[1, é]", "unexpected byte 0xC3"), ("[1, x]", "unexpected character 'x'"),
        ] {
            XCTAssertThrowsError(try JSONParser.parse(Array(input.utf8)), input) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains(expected), text)
                XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value > 0x7E }, text)
            }
        }
        XCTAssertThrowsError(try JSONParser.parse(Array("[1,\n\u{0}]".utf8))) { error in
            XCTAssertTrue("\(error)".contains("unexpected byte 0x0"), "\(error)")
        }
        XCTAssertThrowsError(try JSONParser.parse(Array("[\"a\\\u{1B}\"]".utf8))) { error in
            XCTAssertTrue("\(error)".hasSuffix("invalid escape: backslash and byte 0x1B"), "\(error)")
        }
        XCTAssertThrowsError(try JSONParser.parse(Array("[\"a\\q\"]".utf8))) { error in
            XCTAssertTrue("\(error)".hasSuffix("invalid escape: backslash and character 'q'"), "\(error)")
        }
    }
}
