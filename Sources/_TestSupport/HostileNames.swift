import Foundation
import PropertyBased
import XCTest

/// The property test every writer of scripts, pages, captions or terminal lines runs: names and paths built from
/// an alphabet of hostile pieces, fed to the writer, and what it wrote checked for injection, crashes and validity.
///
/// Generation uses swift-property-based's generators with a fixed seed (the suite is XCTest, run with
/// `--disable-swift-testing`, so its Swift Testing `propertyCheck` is not used): a failure names the input (escaped)
/// and the seed, and repeats on every run.
public enum HostileNames {
    /// Where an injected shell command would leave its trace: `check` puts this placeholder's replacement in the
    /// pieces that run commands, so a test can look for the file afterwards.
    public static let markerPlaceholder = "{MARKER}"

    /// The alphabet: each piece attacks some writer. Shell (line feed, quotes, `$()`, backtick, `;`, `#`),
    /// terminals (ESC sequences: clear screen, OSC window title, CSI as the C1 byte), control characters (tab,
    /// carriage return, DEL, NEL, NUL when `includingNUL`), bidi controls (U+202E override, U+2066…U+2069
    /// isolates, U+202A embedding, U+202C pop), markup and caption syntax (`<`, `&`, `-->`, `</script>`), URL and
    /// protocol prefixes ffmpeg reads (`concat:`, `http:`, `file:`), option look-alikes, filter-graph syntax and
    /// plain text (letters, digits, right-to-left letters, an emoji).
    public static func pieces(marker: String, includingNUL: Bool = false) -> [String] {
        var pieces = [
            "\n", "\r", "\r\n", "'", "\"", "$(touch \(marker))", "`touch \(marker)`", ";", "; touch \(marker) #",
            "\ntouch \(marker) #", "#", "\\", "$HOME", "${IFS}", "&&", "|", "*",
            "\u{1B}[2J", "\u{1B}]0;owned\u{07}", "\u{9B}31m", "\u{1B}", "\t", "\u{7F}", "\u{85}", "\u{0B}", "\u{0C}",
            "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}", "\u{202A}", "\u{202C}", "\u{200F}",
            "<", ">", "&", "&amp;", "-->", "</script>", "<b>", "concat:", "http:", "file:", "-", "--help",
            ":", ",", "[", "]", "=", "%", "%A", " ", "/", "..", "1.00", "a", "Cat", "שלום", "é", "😀",
        ]
        if includingNUL { pieces.append("\u{0}") }
        return pieces
    }

    /// Fixed cases every check runs first: each piece alone, a 255-byte name, empty-ish names, and the attacks
    /// from issue 23.
    public static func fixedCases(marker: String, includingNUL: Bool = false) -> [String] {
        pieces(marker: marker, includingNUL: includingNUL) + [
            String(repeating: "a", count: 255), String(repeating: "é", count: 127) + "a", String(repeating: "\u{202E}", count: 85),
            "", " ", ".", "\u{200B}", "res\ntouch \(marker) #", "\u{202E}cat", "\u{1B}[2J\u{1B}]0;title\u{07}dog", "tab\there",
        ]
    }

    /// `count` generated names (then the fixed cases), each joined from up to 8 pieces and letters.
    public static func generated(count: Int, seed: String, marker: String, includingNUL: Bool = false) -> [String] {
        guard var random = Xoshiro(seed: seed) else { return [] }
        let piece = Gen<String?>.element(of: pieces(marker: marker, includingNUL: includingNUL))
        let length = Gen<Int>.int(in: 1...8)
        return (0..<count).map { _ in
            (0..<length.run(using: &random)).map { _ in piece.run(using: &random) ?? "" }.joined()
        }
    }

    /// The seed of `check` unless a test passes its own (swift-property-based's form: 32 bytes in base64).
    public static let defaultSeed = "aGFyZGVuLW5hbWVzLWlzc3VlLTIzLXByb3BlcnR5ISE="

    /// Runs `property` on the fixed cases and `count` generated names; `property` returns nil when the writer's
    /// output is fine, else what is wrong. A throw is a failure too (a writer that refuses a name returns nil
    /// itself after checking the refusal). Reports at most 5 failing inputs, escaped, with the seed, at the
    /// caller's file and line; returns how many names were tried.
    @discardableResult
    public static func check(
        _ what: String, count: Int = 200, seed: String = defaultSeed, marker: String = "/nonexistent/marker",
        includingNUL: Bool = false, file: StaticString = #filePath, line: UInt = #line,
        _ property: (String) throws -> String?
    ) -> Int {
        let names =
            fixedCases(marker: marker, includingNUL: includingNUL)
            + generated(count: count, seed: seed, marker: marker, includingNUL: includingNUL)
        XCTAssertNotNil(Xoshiro(seed: seed), "not a seed (32 bytes in base64): \(seed)", file: file, line: line)
        var failures = 0
        for name in names {
            let problem: String?
            do {
                problem = try property(name)
            } catch {
                problem = "threw \(error)"
            }
            guard let problem else { continue }
            failures += 1
            if failures <= 5 {
                XCTFail("\(what) with \(escaped(name)): \(problem) (seed \(seed))", file: file, line: line)
            }
        }
        if failures > 5 { XCTFail("\(what): \(failures) failing names in all (seed \(seed))", file: file, line: line) }
        return names.count
    }

    /// `text` with every non-printing or bidi scalar written `\u{…}`, for failure messages.
    public static func escaped(_ text: String) -> String {
        "\""
            + text.unicodeScalars.map { scalar in
                scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x2000...0x206F).contains(scalar.value)
                    ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
            }.joined() + "\""
    }

    // MARK: Checks of what a writer wrote

    /// Terminal text: the control characters (other than line feed and tab) and bidi controls that reached it,
    /// nil when there are none.
    public static func terminalProblem(_ text: String) -> String? {
        let bad = text.unicodeScalars.filter { scalar in
            (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
                || isBidiControl(scalar)
        }
        return bad.isEmpty ? nil : "raw \(escaped(String(String.UnicodeScalarView(bad)))) on the terminal"
    }

    /// The explicit bidi formatting characters (embeddings, overrides, isolates, marks).
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
            || [0x200E, 0x200F, 0x061C].contains(scalar.value)
    }

    /// Text (caption, cue, plain-text attribute) where names sit beside numbers: an embedding or override
    /// (U+202A…U+202E) outside every isolate (FSI/LRI/RLI … PDI), or an isolate left open or closed twice, nil
    /// when there is none. The number after a stray override would be shown reversed.
    public static func bidiProblem(_ text: String) -> String? {
        bidiProblem(scalars: Array(text.unicodeScalars), elementIsolates: [])
    }

    /// HTML: as `bidiProblem`, with `<bdi>` … `</bdi>` counting as an isolate too (HTML's own), over the page's
    /// text (and script) outside its tags: attribute values are skipped, since a `src` must keep a name exactly and
    /// a tooltip or `alt` text is shown on its own, beside no number.
    public static func htmlBidiProblem(_ html: String) -> String? {
        var scalars: [Unicode.Scalar] = []
        var inTag = false
        for scalar in html.unicodeScalars {
            // Scalars inside a tag are kept as spaces, so `<bdi>` and `</bdi>` still read, and nothing else does.
            if scalar == "<" { inTag = true }
            scalars.append(inTag && !scalar.isASCII ? " " : scalar)
            if scalar == ">" { inTag = false }
        }
        var isolates: [(open: Int, close: Int)] = []
        var opened: [Int] = []
        var index = 0
        let open = Array("<bdi>".unicodeScalars), close = Array("</bdi>".unicodeScalars)
        while index < scalars.count {
            if scalars[index] == "<" {
                if Array(scalars[index..<min(scalars.count, index + open.count)]) == open { opened.append(index) }
                if Array(scalars[index..<min(scalars.count, index + close.count)]) == close {
                    guard let start = opened.popLast() else { return "</bdi> without <bdi> at scalar \(index)" }
                    isolates.append((start, index))
                }
            }
            index += 1
        }
        guard opened.isEmpty else { return "<bdi> left open" }
        return bidiProblem(scalars: scalars, elementIsolates: isolates)
    }

    /// Why `html`, a page written with a hostile name, is not the page written with a plain one: its tag sequence
    /// differs from `plainTags` (`tagSequence` of the plain page; the first differing tags are named), or its bidi
    /// isolation is broken (`htmlBidiProblem`). Nil when it is the same page.
    public static func markupProblem(_ html: String, plainTags: [String]) -> String? {
        let tags = tagSequence(html)
        if tags != plainTags {
            let index = zip(tags, plainTags).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(tags.count, plainTags.count)
            return
                "the markup differs from a plain name's at tag \(index): \(tags.dropFirst(index).prefix(3)) for \(plainTags.dropFirst(index).prefix(3))"
        }
        return htmlBidiProblem(html)
    }

    /// The page's markup without its text: each tag's name in order (`div`, `/div`, …), so a page written with a
    /// hostile name can be compared with the same page written with a plain one: any difference is markup the
    /// name injected (or lost).
    public static func tagSequence(_ html: String) -> [String] {
        var tags: [String] = []
        var rest = Substring(html)
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            let name = rest.prefix { $0 == "/" || $0 == "!" || $0.isASCII && ($0.isLetter || $0.isNumber) }
            if name.contains(where: { $0.isLetter }) { tags.append(String(name)) }
        }
        return tags
    }

    private static func bidiProblem(scalars: [Unicode.Scalar], elementIsolates: [(open: Int, close: Int)]) -> String? {
        var depth = 0
        for (index, scalar) in scalars.enumerated() {
            switch scalar.value {
            case 0x2066...0x2068: depth += 1
            case 0x2069:
                guard depth > 0 else { return "a PDI that closes no isolate at scalar \(index)" }
                depth -= 1
            case 0x202A...0x202E:
                let inElement = elementIsolates.contains { $0.open < index && index < $0.close }
                if depth == 0 && !inElement {
                    let context = String(String.UnicodeScalarView(scalars[max(0, index - 40)..<min(scalars.count, index + 40)]))
                    return "U+\(String(scalar.value, radix: 16, uppercase: true)) outside any isolate, near \(escaped(context))"
                }
            default: break
            }
        }
        return depth == 0 ? nil : "\(depth) isolate(s) left open"
    }
}

/// Checks a generated bash batch script (Slurm's, and any later one): `bash -n` accepts it, every line is the
/// `#!` line, a comment (`#SBATCH` included), `set -eu`, an `export NAME='…'` of one single-quoted value, or the
/// final `exec` line; and running it (with the program replaced by a stub) leaves no marker file behind.
public enum BatchScriptCheck {
    /// What is wrong with the script's lines, nil when nothing: every line outside the exec is one of the kinds
    /// above, and the `exec` is the last line.
    public static func lineProblem(_ script: String) -> String? {
        var lines = script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.last == "" else { return "the script does not end with a line feed" }
        lines.removeLast()
        guard lines.first == "#!/bin/bash" else { return "the first line is not #!/bin/bash" }
        guard let last = lines.last, last.hasPrefix("exec ") else { return "the last line is not the exec line" }
        for (number, line) in lines.dropLast().enumerated() {
            if line.hasPrefix("#") || line == "set -eu" || isExport(line) { continue }
            return "line \(number + 1) is live shell text: \(HostileNames.escaped(line))"
        }
        return nil
    }

    /// `export NAME='…'` with the value one single-quoted word (`'\''` for a quote inside).
    static func isExport(_ line: String) -> Bool {
        guard line.hasPrefix("export "), let equals = line.firstIndex(of: "=") else { return false }
        let name = line[line.index(line.startIndex, offsetBy: 7)..<equals]
        guard !name.isEmpty, name.allSatisfy({ $0 == "_" || $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return false }
        let value = line[line.index(after: equals)...].replacingOccurrences(of: #"'\''"#, with: "")
        return value.count >= 2 && value.hasPrefix("'") && value.hasSuffix("'") && value.dropFirst().dropLast().allSatisfy { $0 != "'" }
    }

    /// `bash -n` on the script: nil when it parses, else bash's message.
    public static func syntaxProblem(_ script: String, in folder: URL) throws -> String? {
        let path = folder.appendingPathComponent("syntax-\(UUID().uuidString).sh")
        try Data(script.utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let outcome = try WorkbenchBinary.runProcess("/bin/bash", ["-n", path.path], environment: ["PATH": "/usr/bin:/bin"])
        return outcome.status == 0 ? nil : "bash -n: \(outcome.standardError)"
    }

    /// Runs the script with bash as a Slurm array task 0 would (the program it execs should be a stub that does
    /// nothing), in `folder`; returns its outcome.
    public static func run(_ script: String, in folder: URL) throws -> WorkbenchBinary.Outcome {
        let path = folder.appendingPathComponent("run-\(UUID().uuidString).sh")
        try Data(script.utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        return try WorkbenchBinary.runProcess(
            "/bin/bash", [path.path],
            environment: ["PATH": "/usr/bin:/bin", "SLURM_ARRAY_TASK_ID": "0", "HOME": folder.path],
            workingDirectory: folder)
    }
}
