import FileFormats
@testable import Labeling
@testable import Video
import XCTest
import _TestSupport

/// Captions under hostile labels (issue 23, item 9): the WebVTT file still parses by the specification, with one
/// cue per stretch and the label isolated from its percentage; the burned-in captions' sendcmd script still
/// decodes, through both quoting layers, to one drawable line per caption: no control character (a tab made
/// ffmpeg fail) and no format character (issue 44: drawtext drew a box for each isolate).
final class HostileCaptionTests: XCTestCase {
    func testWebVTTStaysValidAndIsolatesEveryLabel() {
        HostileNames.check("WebVTT", includingNUL: true) { label in
            let stretches = [
                LabelStretch(start: 0, end: 1.5, label: label, meanConfidence: 1),
                LabelStretch(start: 1.5, end: 3, label: "plain", meanConfidence: 0.5),
            ]
            let cues: [WebVTTFile.Cue]
            do {
                cues = try WebVTTFile.parse(WebVTT.document(stretches: stretches))
            } catch {
                return "the file does not parse: \(error)"
            }
            guard cues.count == 2 else { return "\(cues.count) cues, not 2" }
            guard cues[1].text == "\u{2068}plain\u{2069} (50 %)" else { return "the next cue changed: \(HostileNames.escaped(cues[1].text))" }
            guard cues[0].text.hasSuffix("\u{2069} (100 %)") else { return "the percentage is not after the isolated label" }
            return HostileNames.bidiProblem(cues[0].text)
        }
    }

    func testCaptionCommandsDecodeToOneDrawableLineWhateverTheLabel() {
        HostileNames.check("drawtext commands", includingNUL: true) { label in
            let text = "\(DisplayText.isolated(label))  100 %"
            let script = AnnotatedVideo.commands([.init(second: 0, text: text), .init(second: 2, text: "plain")])
            let lines = script.split(separator: "\n").map(String.init)
            guard lines.count == 2, script.hasSuffix(";\n") else { return "\(lines.count) command lines" }
            guard lines[1] == "2.000 drawtext reinit text=plain;" else { return "the next command changed: \(lines[1])" }
            guard lines[0].hasPrefix("0.000 drawtext reinit "), lines[0].hasSuffix(";") else { return "not a drawtext command" }
            let token = String(lines[0].dropFirst("0.000 drawtext reinit ".count).dropLast())
            guard let option = Self.unescape(token, special: Set("',;[]"), splitsOnWhitespace: true) else { return "sendcmd would split the token" }
            guard option.hasPrefix("text="), let drawn = Self.unescape(String(option.dropFirst(5)), special: ["'", ":"], splitsOnWhitespace: false)
            else {
                return "drawtext would cut the option: \(HostileNames.escaped(option))"
            }
            if drawn.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                return "a control character reaches drawtext: \(HostileNames.escaped(drawn))"
            }
            // The isolates and every other format character are left out: drawtext's font has no glyph for them,
            // and drawtext lays the line out left to right whatever it holds.
            if let format = drawn.unicodeScalars.first(where: { $0.properties.generalCategory == .format }) {
                return String(format: "the format character U+%04X reaches drawtext", format.value)
            }
            guard drawn.hasSuffix("  100 %") else { return "the number is not after the label" }
            return nil
        }
    }

    /// One quoting layer undone: `\` takes the next character literally; nil when an unescaped special character
    /// (one that would end or split the token: for sendcmd, whitespace too) appears, or a `\` ends it.
    private static func unescape(_ text: String, special: Set<Character>, splitsOnWhitespace: Bool) -> String? {
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                result.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if special.contains(character)
                || splitsOnWhitespace && character.unicodeScalars.contains(where: { $0.properties.isWhitespace && $0.value < 0x80 })
            {
                return nil
            } else {
                result.append(character)
            }
        }
        return escaping ? nil : result
    }
}
