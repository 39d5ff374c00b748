import Foundation

/// A strict reader of WebVTT files for tests, written from the W3C specification ("WebVTT: The Web Video Text
/// Tracks Format", sections "WebVTT file structure" and "WebVTT cue timings"), independent of Workbench's writer.
///
/// It checks the syntax a conforming file must have, not just what browsers tolerate: the `WEBVTT` signature line
/// (after an optional byte order mark, optionally followed by a space or tab and text without `-->`), a blank line
/// after the header, blocks separated by blank lines, `NOTE` comments, optional cue identifiers, timings
/// `[hh:]mm:ss.ttt --> [hh:]mm:ss.ttt` with minutes and seconds below 60 and hours of two or more digits, an end
/// after the start, start times that never go back, and cue text without `-->`, with `&` only in character
/// references and `<` only opening a cue tag.
public enum WebVTTFile {
    /// One cue.
    public struct Cue: Sendable, Equatable {
        public var identifier: String?
        public var start: Double
        public var end: Double
        public var text: String
    }

    /// Why a file is not valid WebVTT, with its line number (1-based).
    public struct ParseError: Error, CustomStringConvertible {
        public let line: Int
        public let reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// The cues of `text`, or the first syntax error.
    public static func parse(_ text: String) throws -> [Cue] {
        var body = text
        if body.hasPrefix("\u{FEFF}") { body.removeFirst() }
        let lines = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .components(separatedBy: "\n")
        guard let signature = lines.first, signature == "WEBVTT" || signature.hasPrefix("WEBVTT ") || signature.hasPrefix("WEBVTT\t"),
            !signature.contains("-->")
        else {
            throw ParseError(line: 1, reason: "the first line must be WEBVTT")
        }
        var index = 1
        // Header lines run to the first blank line.
        while index < lines.count, !lines[index].isEmpty {
            if lines[index].contains("-->") { throw ParseError(line: index + 1, reason: "a blank line must follow the header") }
            index += 1
        }
        var cues: [Cue] = []
        while index < lines.count {
            if lines[index].isEmpty { index += 1; continue }
            var block: [String] = []
            let first = index
            while index < lines.count, !lines[index].isEmpty { block.append(lines[index]); index += 1 }
            if block[0] == "NOTE" || block[0].hasPrefix("NOTE ") || block[0].hasPrefix("NOTE\t") {
                if block.contains(where: { $0.contains("-->") }) { throw ParseError(line: first + 1, reason: "a comment must not contain -->") }
                continue
            }
            var identifier: String?
            var timingLine = 0
            if !block[0].contains("-->") {
                identifier = block[0]
                timingLine = 1
                guard block.count > 1 else { throw ParseError(line: first + 1, reason: "a cue identifier needs a timing line after it") }
            }
            let (start, end) = try timings(block[timingLine], line: first + timingLine + 1)
            guard end > start else { throw ParseError(line: first + timingLine + 1, reason: "the cue must end after it starts") }
            if let previous = cues.last, start < previous.start {
                throw ParseError(line: first + timingLine + 1, reason: "cues must be in order of their start times")
            }
            let payload = Array(block[(timingLine + 1)...])
            for (offset, line) in payload.enumerated() {
                try checkCueText(line, line: first + timingLine + 2 + offset)
            }
            cues.append(Cue(identifier: identifier, start: start, end: end, text: payload.joined(separator: "\n")))
        }
        return cues
    }

    private static func timings(_ line: String, line number: Int) throws -> (Double, Double) {
        var scanner = Substring(line)
        let start = try timestamp(&scanner, line: number)
        guard scanner.first == " " || scanner.first == "\t" else {
            throw ParseError(line: number, reason: "whitespace must separate the start from -->")
        }
        scanner = scanner.drop { $0 == " " || $0 == "\t" }
        guard scanner.hasPrefix("-->") else { throw ParseError(line: number, reason: "expected -->") }
        scanner = scanner.dropFirst(3)
        guard scanner.first == " " || scanner.first == "\t" else { throw ParseError(line: number, reason: "whitespace must follow -->") }
        scanner = scanner.drop { $0 == " " || $0 == "\t" }
        let end = try timestamp(&scanner, line: number)
        if let next = scanner.first, next != " " && next != "\t" {
            throw ParseError(line: number, reason: "settings must be separated from the end time by whitespace")
        }
        return (start, end)
    }

    /// `[hh:]mm:ss.ttt`: a first component of other than two digits (or above 59) is hours.
    private static func timestamp(_ scanner: inout Substring, line: Int) throws -> Double {
        func digits() -> String {
            let run = scanner.prefix { $0.isASCII && $0.isNumber }
            scanner = scanner.dropFirst(run.count)
            return String(run)
        }
        let first = digits()
        guard !first.isEmpty, scanner.first == ":" else { throw ParseError(line: line, reason: "malformed timestamp") }
        scanner = scanner.dropFirst()
        let second = digits()
        var hours = 0, minutes: Int, seconds: Int
        if first.count != 2 || Int(first)! > 59 || scanner.first == ":" {
            guard first.count >= 2, scanner.first == ":" else { throw ParseError(line: line, reason: "hours need two or more digits and minutes") }
            hours = Int(first)!
            guard second.count == 2 else { throw ParseError(line: line, reason: "minutes need two digits") }
            minutes = Int(second)!
            scanner = scanner.dropFirst()
            let third = digits()
            guard third.count == 2 else { throw ParseError(line: line, reason: "seconds need two digits") }
            seconds = Int(third)!
        } else {
            guard second.count == 2 else { throw ParseError(line: line, reason: "seconds need two digits") }
            minutes = Int(first)!
            seconds = Int(second)!
        }
        guard minutes <= 59, seconds <= 59 else { throw ParseError(line: line, reason: "minutes and seconds must be below 60") }
        guard scanner.first == "." else { throw ParseError(line: line, reason: "expected . before the milliseconds") }
        scanner = scanner.dropFirst()
        let thousandths = digits()
        guard thousandths.count == 3 else { throw ParseError(line: line, reason: "milliseconds need three digits") }
        return Double(hours * 3600 + minutes * 60 + seconds) + Double(Int(thousandths)!) / 1000
    }

    private static let cueTags: Set<String> = ["c", "i", "b", "u", "ruby", "rt", "v", "lang"]

    private static func checkCueText(_ text: String, line: Int) throws {
        if text.contains("-->") { throw ParseError(line: line, reason: "cue text must not contain -->") }
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            let after = rest[rest.index(after: ampersand)...]
            guard let semicolon = after.firstIndex(of: ";") else { throw ParseError(line: line, reason: "& must start a character reference") }
            let name = after[..<semicolon]
            let isNamed = !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
            let number = name.dropFirst()
            let isDecimal = !number.isEmpty && number.allSatisfy { $0.isASCII && $0.isNumber }
            let isHexadecimal = (number.first == "x" || number.first == "X") && number.count > 1 && number.dropFirst().allSatisfy(\.isHexDigit)
            let isNumeric = name.hasPrefix("#") && (isDecimal || isHexadecimal)
            guard isNamed || isNumeric else { throw ParseError(line: line, reason: "& must start a character reference") }
            rest = after[after.index(after: semicolon)...]
        }
        rest = Substring(text)
        while let open = rest.firstIndex(of: "<") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: ">") else { throw ParseError(line: line, reason: "< must open a cue tag") }
            var tag = after[..<close]
            if tag.hasPrefix("/") { tag = tag.dropFirst() }
            let name = tag.prefix { $0 != "." && $0 != " " && $0 != "\t" }
            let isTimestamp = name.first?.isNumber ?? false
            guard isTimestamp || cueTags.contains(String(name)) else { throw ParseError(line: line, reason: "< must open a cue tag") }
            rest = after[after.index(after: close)...]
        }
    }
}
