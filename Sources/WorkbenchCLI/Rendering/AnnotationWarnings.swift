import Foundation
import Workbench

/// What the commands that read annotations (train and evaluate on a detector's data) say about them on stderr.
enum AnnotationWarnings {
    /// The one warning for the boxes of `file` cut to their picture: how many, the furthest one out, and that they
    /// were kept.
    static func clipped(_ boxes: [ClippedBox], file: String) -> String {
        guard let worst = boxes.max(by: { $0.overhang < $1.overhang }) else { return "" }
        let one = boxes.count == 1
        let what = one ? "1 box reaches past the edge of its picture (by " : "\(boxes.count) boxes reach past the edges of their pictures (up to "
        return "warning: \(file): \(what)\(pixels(worst.overhang)) px: entry \(worst.entry) (\"\(worst.image)\"), box \(worst.box) "
            + "(\"\(worst.label)\"), \(worst.pictureSize.width) × \(worst.pictureSize.height)); "
            + (one ? "cut to it and kept" : "cut to them and kept")
    }

    /// "2", "1.5".
    private static func pixels(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.1f", value)
    }
}
