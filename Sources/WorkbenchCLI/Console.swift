import ArgumentParser
import Foundation
import Workbench

/// Everything the CLI writes to the terminal: results on stdout, progress and problems on stderr.
///
/// Results go through one checked writer (`OutputFile`), so a full disk or a closed pipe on stdout is an error
/// with one line and exit status 1, never a crash or a silent loss; `SIGPIPE` is ignored (see `WorkbenchCommand`)
/// so a closed pipe is an `EPIPE` error that can be reported.
///
/// Text from outside (label folders, file names, paths) reaches the terminal only through `output` and `warn`,
/// which write every control and bidi character in it as `\u001B` etc. (`DisplayText.terminal`), keeping only
/// line feeds (and, on stdout, the tabs between columns): a name cannot clear the screen, retitle the window or
/// reorder the numbers beside it. A name's own line feed or tab is escaped where the name is put in a line
/// (`DisplayText.terminal(name)`, `DisplayText.quoted`), and a failure's path by `failureText`.
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
            try standardOutput.write(DisplayText.terminal(text, keepingLayout: true))
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

    /// Writes a line (or lines) to stderr: tabs, control and bidi characters escaped, line feeds kept.
    static func warn(_ line: String) {
        // Results so far go out first, so a warning lands after them even when stdout is a pipe. A failure is kept
        // by the writer and reported at the end.
        try? standardOutput.flush()
        fflush(nil)  // the C library's streams too (nil: all of them), which anything using `print` fills
        writeToStandardError(DisplayText.terminalLines(line) + "\n")
    }

    /// A failure as a line says it (`ErrorWording`'s words; `"\(error)"` with `worded: false`), its path (text from
    /// outside, where a line feed would start a line of its own) in its terminal form; `warn` escapes the rest.
    static func failureText(_ error: any Error, worded: Bool = true) -> String {
        let line = worded ? ErrorWording.line(for: error) : "\(error)"
        guard let path = WorkbenchError(passing: error).path, line.hasPrefix(path + ": ") else {
            return line
        }
        return DisplayText.terminal(path) + line.dropFirst(path.count)
    }

    /// Writes text to stderr as it is (the progress bar's own escapes), ignoring failures: there is nowhere left to report them.
    static func writeToStandardError(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            bytes = bytes.dropFirst(written)
        }
    }

    /// Runs a command body; a thrown user-facing error becomes one line on stderr (`ErrorWording`, which words the
    /// error's hint with this program's options) and exit status 1, and so does
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
            warn("workbench: \(failureText(error))")
            status = ExitCode(1)
        }
        if let failure = finishStandardOutput() {
            if !reportedOutputFailure { writeToStandardError(DisplayText.terminal("workbench: \(failure)") + "\n") }
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
