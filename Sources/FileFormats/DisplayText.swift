/// Names from outside (label folders, file names, paths) made safe to show: on a terminal, and beside numbers in
/// bidirectional text.
///
/// A name can hold characters that act instead of showing: terminal escapes (`ESC[2J` clears the screen, an OSC
/// sequence retitles the window) and the Unicode bidi controls (U+202E RIGHT-TO-LEFT OVERRIDE turns "1.00" that
/// follows it into "00.1"). `terminal` makes every such character visible (`\u001B`); `isolated` keeps a name's direction to
/// itself.
public enum DisplayText {
    /// `text` as a terminal may show it: every control character (C0 and C1, DEL, carriage return) and every bidi
    /// embedding, override, isolate and mark character is written as JSON and JavaScript write it, `\u001B` for
    /// ESC, `\u202E` for the override, `\t` and `\n` for tab and line feed. The JSON form, because JSON output
    /// passes through here too: the characters it leaves raw inside strings (C1, bidi) come out as valid escapes
    /// of themselves, and the ones it escapes never reach here raw. With `keepingLayout`, line feeds and tabs are
    /// kept, so a whole block of output (lines, tab-separated columns) can go through here; a name on its own
    /// passes `false` so it stays one field on one line.
    public static func terminal(_ text: String, keepingLayout: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingLayout: keepingLayout) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if !needsEscape(scalar, keepingLayout: keepingLayout) {
                result.unicodeScalars.append(scalar)
            } else if scalar == "\t" {
                result += "\\t"
            } else if scalar == "\n" {
                result += "\\n"
            } else {
                let digits = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
            }
        }
        return result
    }

    /// `text` as a terminal may show it with its line breaks kept: each line in the terminal form of a single field
    /// (a tab in it written `\t`). For stderr, whose messages have lines but never columns.
    public static func terminalLines(_ text: String) -> String {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { terminal(String(String.UnicodeScalarView($0))) }.joined(separator: "\n")
    }

    /// `value` rounded to the thousandth for a message, as Swift writes a `Double` ("0.04", "3600.0", "1e+308"):
    /// rounded only where that is exact enough to matter, so a large finite number is never shown as "inf".
    public static func thousandths(_ value: Double) -> String {
        abs(value) < 1e15 ? "\((value * 1000).rounded() / 1000)" : "\(value)"
    }

    /// `name` between double quotes in its terminal form (a line feed or tab in it written `\n`, `\t`), for a name
    /// from outside quoted inside a message: whatever it holds, the message stays one line with the name one field.
    public static func quoted(_ name: String) -> String { "\"" + terminal(name) + "\"" }

    /// Whether the terminal form of `scalar` differs from the scalar.
    public static func needsEscape(_ scalar: Unicode.Scalar, keepingLayout: Bool = false) -> Bool {
        if scalar == "\n" || scalar == "\t" { return !keepingLayout }
        return isControl(scalar) || isBidiControl(scalar)
    }

    /// C0 and C1 control characters and DEL (Unicode general category Cc).
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The explicit bidi formatting characters: embeddings and overrides (U+202A…U+202E), isolates
    /// (U+2066…U+2069), and the marks U+200E, U+200F and U+061C.
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            || scalar.value == 0x200E || scalar.value == 0x200F || scalar.value == 0x061C
    }

    /// U+2068 FIRST STRONG ISOLATE.
    public static let firstStrongIsolate: Unicode.Scalar = "\u{2068}"
    /// U+2069 POP DIRECTIONAL ISOLATE.
    public static let popDirectionalIsolate: Unicode.Scalar = "\u{2069}"

    /// `name` between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE (Unicode bidi algorithm, UAX #9 §2.4), so
    /// whatever direction or override it holds ends with it and cannot reorder the text around it: the text form
    /// of HTML's `<bdi>`, for places that hold text only (WebVTT cues, drawn captions, SVG titles, attributes).
    ///
    /// A PDI inside `name` that closes no isolate of its own is dropped (it would close this one early), and
    /// isolates `name` opens but does not close are closed before the final PDI; embeddings and overrides need
    /// nothing, since a PDI ends every one opened after its isolate began.
    public static func isolated(_ name: String) -> String {
        var result = ""
        result.unicodeScalars.append(firstStrongIsolate)
        var openIsolates = 0
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0x2066...0x2068:
                openIsolates += 1
                result.unicodeScalars.append(scalar)
            case 0x2069:
                guard openIsolates > 0 else { continue }
                openIsolates -= 1
                result.unicodeScalars.append(scalar)
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        for _ in 0...openIsolates { result.unicodeScalars.append(popDirectionalIsolate) }
        return result
    }
}
