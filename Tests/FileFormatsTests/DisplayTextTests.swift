import FileFormats
import Foundation
import XCTest
import _TestSupport

/// `DisplayText`: names made safe for the terminal and isolated beside numbers, for every hostile name.
final class DisplayTextTests: XCTestCase {
    func testTerminalTextShowsEveryControlAndBidiCharacterEscaped() {
        XCTAssertEqual(DisplayText.terminal("\u{1B}[2Jcat\u{1B}]0;x\u{07}"), #"\u001B[2Jcat\u001B]0;x\u0007"#)
        XCTAssertEqual(DisplayText.terminal("a\tb\nc"), #"a\tb\nc"#)
        XCTAssertEqual(DisplayText.terminal("a\tb\nc", keepingLayout: true), "a\tb\nc")
        XCTAssertEqual(DisplayText.terminal("\u{202E}1.00 \u{9B}x\r"), #"\u202E1.00 \u009Bx\u000D"#)
        XCTAssertEqual(DisplayText.terminal("Café שלום 😀"), "Café שלום 😀", "printable text, right-to-left letters included, is untouched")
    }

    /// Issue 45, items 7 and 9: lines for stderr keep their breaks but show a tab; a quoted name is one field; a
    /// large finite number is never "inf".
    func testLinesQuotedNamesAndThousandths() {
        XCTAssertEqual(DisplayText.terminalLines("a\tb\nc\u{1B}"), #"a\tb"# + "\n" + #"c\u001B"#)
        XCTAssertEqual(DisplayText.quoted("one\ntwo\tthree"), #""one\ntwo\tthree""#)
        XCTAssertEqual(DisplayText.thousandths(0.04), "0.04")
        XCTAssertEqual(DisplayText.thousandths(2.0004), "2.0")
        XCTAssertEqual(DisplayText.thousandths(1e308), "1e+308")
        XCTAssertEqual(DisplayText.thousandths(-1e308), "-1e+308")
    }

    func testIsolatedNamesCannotReorderTheNumberBesideThem() {
        XCTAssertEqual(DisplayText.isolated("cat"), "\u{2068}cat\u{2069}")
        XCTAssertEqual(DisplayText.isolated("a\u{2069}\u{202E}b"), "\u{2068}a\u{202E}b\u{2069}", "a stray PDI cannot close the isolate early")
        XCTAssertEqual(DisplayText.isolated("\u{2067}x"), "\u{2068}\u{2067}x\u{2069}\u{2069}", "an isolate left open is closed first")
    }

    func testHostileNamesOnTheTerminalAndBesideNumbers() {
        let tried = HostileNames.check("DisplayText", count: 500, includingNUL: true) { name in
            let line = DisplayText.terminal(name)
            if let problem = HostileNames.terminalProblem(line) { return problem }
            if line.contains("\n") || line.contains("\t") { return "not one field on one line" }
            if let problem = HostileNames.terminalProblem(DisplayText.terminal(name + "\n", keepingLayout: true)) { return problem }
            if let problem = HostileNames.bidiProblem("\(DisplayText.isolated(name)) (1.00)") { return problem }
            // JSON output passes through the terminal escaping too: it must still parse, to the same name.
            let json = DisplayText.terminal("[" + JSONText.quoted(name) + "]\n", keepingLayout: true)
            guard let parsed = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String] else { return "invalid JSON: \(json)" }
            if parsed != [name] { return "JSON reads back \(parsed.map(HostileNames.escaped))" }
            let plain = !name.unicodeScalars.contains { DisplayText.needsEscape($0) }
            if plain && line != name { return "changed a name with nothing to escape" }
            return nil
        }
        XCTAssertGreaterThan(tried, 500)
    }
}
