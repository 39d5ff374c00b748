import FileFormats

/// Subtitles in WebVTT (W3C, "WebVTT: The Web Video Text Tracks Format"): one cue per labelled stretch, so any
/// player or browser shows the labels over the movie.
public enum WebVTT {
    /// The file's text: the `WEBVTT` signature line, then for each stretch a numbered cue
    /// `hh:mm:ss.ttt --> hh:mm:ss.ttt` with the label (between Unicode isolates, `DisplayText.isolated`, so a
    /// right-to-left override in it cannot reverse the number beside it) and its mean confidence. Cues are in time order and do not
    /// overlap. Stretches shorter than a millisecond (nothing to show) are left out.
    public static func document(stretches: [LabelStretch]) -> String {
        var text = "WEBVTT\n"
        var number = 0
        for stretch in stretches where timestamp(stretch.end) > timestamp(stretch.start) {
            number += 1
            text += "\n\(number)\n\(timestamp(stretch.start)) --> \(timestamp(stretch.end))\n"
            text += cueText("\(DisplayText.isolated(stretch.label)) (\(percent(stretch.meanConfidence)))") + "\n"
        }
        return text
    }

    /// `hh:mm:ss.ttt`, rounded to the millisecond (hours always written, so every timestamp has one form).
    public static func timestamp(_ seconds: Double) -> String {
        let milliseconds = WholeNumber.clamped(seconds * 1000, .toNearestOrAwayFromZero, to: 0...Int.max) ?? 0
        let (hours, rest) = milliseconds.quotientAndRemainder(dividingBy: 3_600_000)
        let (minutes, rest2) = rest.quotientAndRemainder(dividingBy: 60_000)
        let (wholeSeconds, thousandths) = rest2.quotientAndRemainder(dividingBy: 1000)
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(padded(hours, 2)):\(padded(minutes, 2)):\(padded(wholeSeconds, 2)).\(padded(thousandths, 3))"
    }

    /// Cue text as the format requires: `&`, `<` and `>` as character references (so a label can never open a tag
    /// or read as `-->`), line breaks of every kind as spaces (a blank line would end the cue), NUL as U+FFFD.
    static func cueText(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case _ where character.isNewline: result += " "  // \n, \r, and VT, FF, NEL, U+2028/9, which some readers split on
            case "\u{0}": result += "\u{FFFD}"  // as the format's parser would read it
            default: result.append(character)
            }
        }
        return result
    }

    private static func percent(_ value: Float) -> String {
        "\(Int((Double(value) * 100).rounded())) %"
    }
}
