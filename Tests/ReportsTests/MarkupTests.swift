import Reports
import XCTest

/// Escaping and number formatting: everything from outside goes through these before it reaches a page.
final class MarkupTests: XCTestCase {
    func testEscapeNeutralisesMarkupCharacters() {
        XCTAssertEqual(
            Markup.escape("<img src=x onerror='a()'> & \"b\""),
            "&lt;img src=x onerror=&#39;a()&#39;&gt; &amp; &quot;b&quot;")
        XCTAssertEqual(Markup.escape("tab\tnew\nline\u{1}bell\u{7F}"), "tab\tnew\nline\u{FFFD}bell\u{FFFD}")
        XCTAssertEqual(Markup.escape("Crème brûlée 🍮"), "Crème brûlée 🍮")
    }

    func testScriptStringCannotCloseTheScriptElement() {
        XCTAssertEqual(Markup.scriptString("</script><b>\"x\"\\"), "\"\\u003c/script\\u003e\\u003cb\\u003e\\\"x\\\"\\\\\"")
        // Controls and the JavaScript line separators as \uXXXX (not JSON's short \n), other text as it is.
        XCTAssertEqual(Markup.scriptString("a\nb\t&\u{2028}é"), "\"a\\u000ab\\u0009\\u0026\\u2028é\"")
    }

    /// Issue 44, item 8: one way to count things on a page ("1 pictures" no more).
    func testCountsTakeTheNounsNumber() {
        XCTAssertEqual(Markup.count(1, "picture"), "1 picture")
        XCTAssertEqual(Markup.count(0, "picture"), "0 pictures")
        XCTAssertEqual(Markup.count(3, "testing picture"), "3 testing pictures")
        XCTAssertEqual(Markup.count(2, "box", plural: "boxes"), "2 boxes")
        XCTAssertEqual(Markup.count(1, "box", plural: "boxes"), "1 box")
    }

    func testNumbersAreShortAndLocaleFree() {
        XCTAssertEqual(Markup.number(12.5), "12.5")
        XCTAssertEqual(Markup.number(3.0), "3")
        XCTAssertEqual(Markup.number(-0.0001), "0")
        XCTAssertEqual(Markup.number(0.123456, decimals: 3), "0.123")
        XCTAssertEqual(Markup.number(.nan), "0")
        XCTAssertEqual(Markup.percent(0.5834), "58.3 %")
    }
}
