import Workbench

/// The one line a failure is reported with: the error's own "path: reason", then, when the failing module said what
/// would help (`ErrorHint`), that help worded with this program's commands and options. The modules below name the
/// remedy; only here is it spelt as something to type.
enum ErrorWording {
    /// `error` as the line after "workbench: ".
    static func line(for error: any Error) -> String {
        guard let hint = (error as? any HintedError)?.hint else { return "\(error)" }
        if let reason = reason(for: hint) {
            let path = WorkbenchError(passing: error).path
            return path.map { "\($0): \(reason)" } ?? reason
        }
        guard let words = words(for: hint) else { return "\(error)" }
        return "\(error)\(words)"
    }

    /// The whole reason this program gives instead of the library's, for a hint whose remedy sits inside the
    /// sentence; nil where the library's reason stands (and `words` may follow it).
    static func reason(for hint: ErrorHint) -> String? {
        switch hint {
        case .videoOutputsOnPictures: "--clips, --vtt and --html are for videos; these inputs are pictures"
        case .exportCarriesNoMirrorAveraging: "is a detector: its exports do not carry --tta's mirror averaging (detect --tta and evaluate --tta do)"
        case .scoreDetectorOnBoxes:
            "no \(AnnotationReader.fileName) here or in \"Testing Data/\": a detector is scored on boxes (Create ML's annotations or "
                + "detect --json's output), not on folders of labelled images"
        default: nil
        }
    }

    /// What follows the reason for `hint`; nil for a hint this program has no words for (the reason stands alone).
    static func words(for hint: ErrorHint) -> String? {
        switch hint {
        case .printScriptsInstead: " (or print the scripts with --dry-run)"
        case .useAsDetector: ": use it with workbench detect --model"
        case .chooseInputWithSound: " (--audio)"
        case .annotatePictures: " (detect --json on pictures writes one)"
        case .insistOnFineTuning: " (use --fine-tune to insist)"
        case .keptFineTunedAsAsked: " (--keep-fine-tuned)"
        default: nil
        }
    }

    /// A plain training's hint that fine-tuning may pay, its remedy worded with this program's options; the
    /// library's words where the hint was read back from a file (its remedy is not known apart from its text).
    static func line(for hint: TrainingReport.FineTuningHint) -> String {
        switch hint.hint {
        case .fineTuneAutomatically: hint.premise + "--fine-tune-auto tries it (minutes, not seconds)"
        case .fineTuneOverBudget:
            hint.premise + "--fine-tune tries it (about \(hint.estimatedMinutes) minutes by --fine-tune-auto's estimate, over its budget)"
        default: hint.text
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
