import Workbench

/// The one line a failure is reported with: the error's own "path: reason", then, when the failing module said what
/// would help (`ErrorHint`), that help worded with this program's commands and options. The modules below name the
/// remedy; only here is it spelt as something to type.
enum ErrorWording {
    /// `error` as the line after "workbench: ".
    static func line(for error: any Error) -> String {
        guard let hint = (error as? any HintedError)?.hint, let words = words(for: hint) else { return "\(error)" }
        return "\(error)\(words)"
    }

    /// What follows the reason for `hint`; nil for a hint this program has no words for (the reason stands alone).
    static func words(for hint: ErrorHint) -> String? {
        switch hint {
        case .printScriptsInstead: " (or print the scripts with --dry-run)"
        case .useAsDetector: ": use it with workbench detect --model"
        case .chooseInputWithSound: " (--audio)"
        case .annotatePictures: " (detect --json on pictures writes one)"
        default: nil
        }
    }
}

/// An error with words a command adds after it, for a hint only the command can word (it needs the option's value).
struct WordedError: Error, CustomStringConvertible {
    /// The error as the library threw it.
    let error: any Error
    /// What follows its "path: reason".
    let words: String

    /// "path: reason" and the words.
    var description: String { "\(error)\(words)" }
}
