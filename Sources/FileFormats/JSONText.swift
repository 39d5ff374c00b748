import Foundation

/// Writing JSON by hand where the byte layout matters (safetensors headers, JSON Lines output).
public enum JSONText {
    /// `text` as a JSON string literal, quotes included, with the escapes RFC 8259 requires. (An overload, not a
    /// default argument: builds compiled against this one-argument symbol keep linking.)
    public static func quoted(_ text: String) -> String {
        quoted(text, escapingAsUnicode: { _ in false })
    }

    /// `text` as a JSON string literal, quotes included, with the escapes RFC 8259 requires. The scalars for which
    /// `escapesAsUnicode` is true (from the Basic Multilingual Plane) are written `\uXXXX` before any other rule
    /// applies: where the literal is embedded (an HTML `<script>`) may need more escaped than JSON does.
    public static func quoted(_ text: String, escapingAsUnicode escapesAsUnicode: (Unicode.Scalar) -> Bool) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case _ where escapesAsUnicode(scalar): result += String(format: "\\u%04x", scalar.value)
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The scalars a JSON string inside an HTML `<script>` element writes as `\uXXXX`: `<`, `>` and `&`, so a text
    /// such as `</script>` cannot end the element; U+2028 and U+2029, which end a line in older JavaScript; and
    /// every control character.
    public static func escapesInScript(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || ["<", ">", "&", "\u{2028}", "\u{2029}"].contains(scalar)
    }

    /// `value` as a JSON number (Swift's shortest round-trip form), or `null` for NaN and infinities, which JSON
    /// has no way to write: output stays valid JSON whatever the numbers are.
    public static func number(_ value: Float) -> String {
        value.isFinite ? "\(value)" : "null"
    }

    /// `value` as a JSON number, or `null` for NaN and infinities.
    public static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "null"
    }
}
