import FileFormats
import Foundation

/// Text and numbers made safe for HTML and SVG.
///
/// Every string that comes from outside (file names, labels, warnings) goes through `escape` before it touches
/// markup; numbers go through `number`, which never writes exponents or a locale's decimal comma.
public enum Markup {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references: safe as element content and inside
    /// a quoted attribute value. Control characters other than tab and newline (which HTML cannot carry) become
    /// U+FFFD.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value): result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` as element content: escaped, and, when it holds a bidi embedding, override or isolate character,
    /// between Unicode isolates (`DisplayText.isolated`), so whatever direction it sets ends with it and cannot
    /// reorder the markup's text after it. Attribute values use `escape` alone (a `src` must stay exact; a
    /// tooltip is shown on its own).
    public static func text(_ text: String) -> String {
        text.unicodeScalars.contains(where: DisplayText.isBidiControl) ? escape(DisplayText.isolated(text)) : escape(text)
    }

    /// A name from outside (label, file or path) for a string that puts it beside other text or numbers:
    /// between Unicode isolates (`DisplayText.isolated`), so its direction, or a right-to-left override in it,
    /// cannot reorder what follows ("1.00" shown as "00.1"). Then escaped with the rest of the string; in element
    /// content on its own, `HTMLWriter.name` (`<bdi>`) does the same.
    public static func isolate(_ name: String) -> String {
        DisplayText.isolated(name)
    }

    /// `value` with at most `decimals` digits after the point, trailing zeros dropped ("12.5", "3", "-0.25");
    /// non-finite values become "0" so a bad number cannot break a drawing.
    public static func number(_ value: Double, decimals: Int = 2) -> String {
        guard value.isFinite else { return "0" }
        var text = String(format: "%.\(max(0, decimals))f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }

    /// A count with its noun, the one way pages say how many: "1 picture", "0 pictures", "3 testing pictures".
    /// `noun` is the singular; `plural` is for a noun that does not take an "s" ("1 box", "2 boxes").
    public static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) " + (number == 1 ? noun : plural ?? noun + "s")
    }

    /// A fraction as a percentage with one decimal: 0.5834 → "58.3 %".
    public static func percent(_ fraction: Double, decimals: Int = 1) -> String {
        String(format: "%.\(decimals)f %%", fraction * 100)
    }

    /// Text for a JSON string literal that is safe inside an HTML `<script>` element: `<`, `>` and `&` are escaped
    /// as `\u003c` etc., so a label such as `</script>` cannot end the element.
    /// U+2028 and U+2029 end a line in older JavaScript, and every control character is written `\uXXXX` too.
    public static func scriptString(_ text: String) -> String {
        JSONText.quoted(text, escapingAsUnicode: JSONText.escapesInScript)
    }
}

/// Builds HTML text element by element; attribute values and text are escaped here, so callers never write `<`.
///
/// Markup from `SVGCanvas` (already escaped) goes in through `raw`.
public struct HTMLWriter: Sendable {
    /// The markup so far.
    public private(set) var text = ""

    /// An empty writer.
    public init() {}

    /// `<tag attributes…>`; an attribute whose value is nil is left out, an empty value is written bare (`open`).
    public mutating func open(_ tag: String, _ attributes: [(String, String?)] = []) {
        text += "<" + tag
        for (name, value) in attributes {
            guard let value else { continue }
            text += value.isEmpty ? " \(name)" : " \(name)=\"\(Markup.escape(value))\""
        }
        text += ">"
    }

    /// `</tag>`.
    public mutating func close(_ tag: String) {
        text += "</\(tag)>"
    }

    /// `<tag attributes…>escaped content</tag>`.
    public mutating func element(_ tag: String, _ attributes: [(String, String?)] = [], _ content: String) {
        open(tag, attributes)
        text += Markup.text(content)
        close(tag)
    }

    /// A void element such as `<img …>`.
    public mutating func void(_ tag: String, _ attributes: [(String, String?)]) {
        open(tag, attributes)
    }

    /// A name from outside (label, file or path) as element content, escaped and in `<bdi>`: isolated, so its
    /// direction or a bidi override in it cannot reorder the numbers beside it.
    public mutating func name(_ name: String) {
        text += "<bdi>" + Markup.text(name) + "</bdi>"
    }

    /// Escaped text.
    public mutating func write(_ content: String) {
        text += Markup.text(content)
    }

    /// Markup that is already safe (SVG from `SVGCanvas`, or fixed markup written in this module).
    public mutating func raw(_ markup: String) {
        text += markup
    }

    /// A table: a header row, then rows of cells; `numeric` columns are right-aligned.
    public mutating func table(
        header: [String], rows: [[String]], numericColumns: Set<Int> = [], caption: String? = nil,
        classes: String? = nil
    ) {
        open("table", [("class", classes)])
        if let caption { element("caption", [], caption) }
        open("thead")
        open("tr")
        for (column, cell) in header.enumerated() {
            element("th", [("scope", "col"), ("class", numericColumns.contains(column) ? "number" : nil)], cell)
        }
        close("tr")
        close("thead")
        open("tbody")
        for row in rows {
            open("tr")
            for (column, cell) in row.enumerated() {
                if column == 0 {
                    element("th", [("scope", "row")], cell)
                } else {
                    element("td", [("class", numericColumns.contains(column) ? "number" : nil)], cell)
                }
            }
            close("tr")
        }
        close("tbody")
        close("table")
    }
}
