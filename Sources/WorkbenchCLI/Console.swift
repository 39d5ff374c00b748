import ArgumentParser
import Foundation
import Workbench

/// Everything the CLI writes to the terminal: results on stdout, progress and problems on stderr.
///
/// Results go through one checked writer (`OutputFile`), so a full disk or a closed pipe on stdout is an error
/// with one line and exit status 1, never a crash or a silent loss; `SIGPIPE` is ignored (see `WorkbenchCommand`)
/// so a closed pipe is an `EPIPE` error that can be reported.
enum Console {
    /// Standard output. The CLI writes results from one thread only (deliveries come in order on the caller).
    nonisolated(unsafe) static let standardOutput = OutputFile.standardOutput()
    /// The stdout failure already reported, so it is reported once.
    nonisolated(unsafe) private static var reportedOutputFailure = false

    /// Writes result text to stdout; false once stdout has failed (the failure is reported when the command ends),
    /// so a command can stop early.
    @discardableResult
    static func output(_ text: String) -> Bool {
        do {
            try standardOutput.write(text)
            return true
        } catch {
            return false
        }
    }

    /// Writes one line of results to stdout.
    @discardableResult
    static func outputLine(_ line: String = "") -> Bool { output(line + "\n") }

    /// Whether stdout has failed.
    static var outputFailed: Bool { standardOutput.failure != nil }

    /// Writes one line to stderr.
    static func warn(_ line: String) {
        // Results so far go out first, so a warning lands after them even when stdout is a pipe. A failure is kept
        // by the writer and reported at the end.
        try? standardOutput.flush()
        fflush(nil)  // the C library's streams too (nil: all of them), which anything using `print` fills
        writeToStandardError(line + "\n")
    }

    /// Writes raw text to stderr, ignoring failures: there is nowhere left to report them.
    static func writeToStandardError(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Fails before any work when an output's folder is missing, so a long run never ends without its file.
    static func checkWritable(_ path: String) throws {
        if OutputFile.writesThrough(path: path) {
            guard FileManager.default.isWritableFile(atPath: path) else {
                throw WorkbenchError(path: path, reason: "cannot write: permission denied")
            }
            return
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.isWritableFile(atPath: folder) else {
            throw WorkbenchError(path: path, reason: "cannot write here: folder \(folder) does not exist or is not writable")
        }
    }

    /// Runs a command body; a thrown user-facing error becomes one line on stderr and exit status 1, and so does
    /// a failure to write stdout (checked once everything is written).
    static func run(_ body: () throws -> Void) throws {
        var status: ExitCode?
        do {
            try body()
        } catch let exit as ExitCode {
            status = exit
        } catch let failure as OutputFile.Failure where failure == standardOutput.failure {
            // Reported below, once.
            status = ExitCode(1)
        } catch {
            warn("workbench: \(error)")
            status = ExitCode(1)
        }
        if let failure = finishStandardOutput() {
            if !reportedOutputFailure { writeToStandardError("workbench: \(failure)\n") }
            reportedOutputFailure = true
            throw ExitCode(1)
        }
        if let status { throw status }
    }

    /// Flushes stdout (this writer, and the C library's streams, which anything using `print` fills) and gives
    /// the first failure.
    private static func finishStandardOutput() -> OutputFile.Failure? {
        do {
            try standardOutput.flush()
        } catch {
            return error
        }
        errno = 0
        if fflush(nil) != 0 {
            let reason = errno != 0 ? SystemError.describe(errno) : "write error"
            return OutputFile.Failure(path: standardOutput.path, reason: "cannot write: \(reason)")
        }
        return nil
    }
}

/// A progress bar on stderr, redrawn at most ten times a second, shown only when stderr is a terminal.
final class ProgressBar {
    private var total: Int
    let label: String
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
        Console.writeToStandardError("\r\(label) \(bar) \(completed)/\(total)  \(String(format: "%.1f", rate))/s ")
    }

    /// Clears the bar's line.
    func finish() {
        guard enabled else { return }
        Console.writeToStandardError("\r\u{1B}[K")
    }
}

/// JSON string literal for `text`.
func jsonString(_ text: String) -> String { JSONText.quoted(text) }

/// JSON number for `value`; `null` for NaN and infinities, which JSON cannot hold (the workflows refuse them
/// before they get here, so this only keeps the output valid JSON whatever happens).
func jsonNumber(_ value: Float) -> String { JSONText.number(value) }

/// JSON number for `value`; `null` for NaN and infinities.
func jsonNumber(_ value: Double) -> String { JSONText.number(value) }
