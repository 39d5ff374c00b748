import ArgumentParser
import Foundation
import TensorCore
import Workbench

/// Everything the CLI writes to the terminal: results on stdout, progress and problems on stderr.
enum Console {
    /// Writes one line to stderr.
    static func warn(_ line: String) {
        // Results printed so far go out first, so a warning lands after them even when stdout is a pipe.
        fflush(nil)  // nil flushes every output stream, stdout included
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Runs a command body; a thrown user-facing error becomes one line on stderr and exit status 1.
    static func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            warn("workbench: \(error)")
            throw ExitCode(1)
        }
    }
}

/// A progress bar on stderr, redrawn at most ten times a second, shown only when stderr is a terminal.
final class ProgressBar {
    private var total: Int
    private let label: String
    private let start = Date()
    private var lastDraw = Date.distantPast
    private let enabled = isatty(STDERR_FILENO) == 1

    init(total: Int, label: String) {
        self.total = total
        self.label = label
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
        let line = "\r\(label) \(bar) \(completed)/\(total)  \(String(format: "%.1f", rate))/s "
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Clears the bar's line.
    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

/// Where results go: stdout, or a file written atomically when the command succeeds (a temporary file beside it,
/// renamed at the end, removed if the command fails).
final class OutputSink {
    private let destination: String?
    private let temporaryPath: String?
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(path: String?) throws {
        destination = path
        guard let path else {
            temporaryPath = nil
            handle = FileHandle.standardOutput
            return
        }
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporary) else {
            throw WorkbenchError(path: path, reason: "cannot write the output file")
        }
        temporaryPath = temporary
        self.handle = handle
    }

    func write(_ text: String) {
        buffer += text.utf8
        if buffer.count >= 1 << 20 { flush() }
    }

    private func flush() {
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// Makes the output final (renames the temporary file into place).
    func commit() throws {
        flush()
        guard let temporaryPath, let destination else { return }
        try handle.close()
        if rename(temporaryPath, destination) != 0 {
            unlink(temporaryPath)
            throw WorkbenchError(path: destination, reason: String(cString: strerror(errno)))
        }
    }

    /// Drops the output (removes the temporary file).
    func abandon() {
        guard let temporaryPath else { return }
        try? handle.close()
        unlink(temporaryPath)
    }
}

/// JSON string literal for `text`.
func jsonString(_ text: String) -> String { JSONText.quoted(text) }
