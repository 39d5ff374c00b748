import Foundation
import Workbench

/// A progress bar on stderr, redrawn at most ten times a second, shown only when stderr is a terminal.
final class ProgressBar {
    private var total: Int
    let label: String
    private let start = Date()
    private var lastDraw = Date.distantPast
    private let enabled = isatty(STDERR_FILENO) == 1

    init(total: Int, label: String) {
        self.total = total
        self.label = DisplayText.terminal(label)  // a movie's name: written raw below, so escaped here
    }

    /// Seconds since the bar was created.
    var elapsed: Double { Date().timeIntervalSince(start) }

    func update(completed: Int, total newTotal: Int? = nil) {
        if let newTotal { total = max(newTotal, completed) }
        guard enabled else { return }
        let now = Date()
        guard completed == total || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let width = 30
        let filled = total == 0 ? 0 : min(width, width * completed / total)
        let rate = Double(completed) / max(elapsed, 1e-9)
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        Console.writeToStandardError("\r\(label) \(bar) \(completed)/\(total)  \(String(format: "%.1f", rate))/s ")
    }

    /// Clears the bar's line.
    func finish() {
        guard enabled else { return }
        Console.writeToStandardError("\r\u{1B}[K")
    }
}
