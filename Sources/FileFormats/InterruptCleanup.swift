import Foundation
import Glibc

/// What Workbench leaves behind when a signal ends it: nothing. The one registry of the things a run would
/// otherwise leave, which a signal's cleanup stops or removes before the process exits with the signal's status.
///
/// - temporary files (the hidden `.NAME.partial-…` beside an output, `TemporaryFileName`) and temporary folders
///   (`TemporaryFolder`) are registered while they exist and removed on an interrupt;
/// - child processes (ffmpeg, ffprobe, sbatch: `ExternalProcesses`) are registered while they run and killed on an
///   interrupt. They run in a process group of their own, so a terminal's ^C never reaches them.
///
/// Everything goes through one recursive lock. The signal's cleanup takes it and never gives it back (the process
/// exits), so whatever would race with it waits forever instead: a child started inside `holding`, where it is
/// registered in the same step, or a finished file renamed into place by `rename(_:to:)`. A half-finished file thus
/// never appears under its final name, and no child starts after the cleanup has looked for children.
///
/// Only the command-line program installs the signal handlers (`installSignalHandlers()`); a library caller keeps its
/// own signal handling, and the registry then costs a dictionary entry per temporary file.
public enum InterruptCleanup {
    /// One registered item; `forget` it once it is gone (the file renamed or removed, the child reaped).
    public struct Registration: Sendable, Hashable {
        fileprivate let number: UInt64
    }

    /// The signals that end Workbench with a cleanup: ^C, `kill`, a closed terminal.
    public static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    private enum Entry {
        case file(String)
        case folder(String)
        case process(pid_t)
    }

    private static let lock = NSRecursiveLock()
    nonisolated(unsafe) private static var entries: [UInt64: Entry] = [:]
    nonisolated(unsafe) private static var nextNumber: UInt64 = 0
    /// The write end of the pipe the signal handler writes the signal's number to (async-signal-safe).
    nonisolated(unsafe) private static var signalPipe: Int32 = -1

    /// Registers a temporary file to remove on an interrupt (it need not exist yet: ffmpeg creates its output).
    public static func removeOnInterrupt(file path: String) -> Registration { register(.file(path)) }

    /// Registers a temporary folder to remove, with everything in it, on an interrupt.
    public static func removeOnInterrupt(folder path: String) -> Registration { register(.folder(path)) }

    /// Registers a running child process to kill on an interrupt. Start it inside `holding` so that no interrupt
    /// falls between the start and this call.
    public static func stopOnInterrupt(process identifier: pid_t) -> Registration { register(.process(identifier)) }

    /// Removes a registration (a second call does nothing).
    public static func forget(_ registration: Registration) {
        lock.lock()
        defer { lock.unlock() }
        entries[registration.number] = nil
    }

    /// Runs `body` with the registry held: an interrupt's cleanup waits for it, and once a cleanup has begun
    /// `body` never runs (the caller waits until the process exits).
    public static func holding<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Renames a finished temporary file over its destination and forgets its registration, unless an interrupt's
    /// cleanup has begun (then the rename never happens). Returns 0, or the `errno` of a failed rename.
    public static func rename(_ temporary: String, to destination: String, forgetting registration: Registration?) -> Int32 {
        holding {
            let status = Glibc.rename(temporary, destination) == 0 ? 0 : errno
            if status == 0, let registration { forget(registration) }
            return status
        }
    }

    /// Installs the handlers of `signals` (once, at start-up, before any child starts): on any of them, every
    /// registered child is killed, every registered file and folder removed, and the process exits with status
    /// 128 + the signal's number, as a shell reports a process a signal ended.
    public static func installSignalHandlers() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        // Close-on-exec: no child gets either end.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        signalPipe = ends[1]
        let reader = ends[0]
        Thread.detachNewThread {
            var number: UInt8 = 0
            while true {
                let count = read(reader, &number, 1)
                if count == 1 { break }
                if count < 0, errno == EINTR { continue }
                return
            }
            cleanUp()
            _exit(128 + Int32(number))
        }
        for number in signals {
            signal(number) { received in
                // Only async-signal-safe work here: the cleanup itself runs on the reader's thread.
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(InterruptCleanup.signalPipe, &byte, 1)
            }
        }
    }

    /// Kills every registered child and waits (bounded) until each has ended, then removes every registered file
    /// and folder. Keeps the lock: nothing registered, started or renamed after this.
    private static func cleanUp() {
        lock.lock()
        let items = Array(entries.values)
        for case .process(let identifier) in items { kill(identifier, SIGKILL) }
        let deadline = Date().addingTimeInterval(2)
        for case .process(let identifier) in items {
            while hasNotEnded(identifier), Date() < deadline { usleep(5_000) }
        }
        for item in items {
            switch item {
            case .file(let path): unlink(path)
            case .folder(let path): try? FileManager.default.removeItem(atPath: path)
            case .process: break
            }
        }
    }

    /// Whether `identifier` still runs: it exists and is not a zombie waiting to be reaped.
    private static func hasNotEnded(_ identifier: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(identifier)/stat", encoding: .utf8) else { return false }
        // "pid (name) S ...": the state follows the last parenthesis, whatever the name holds.
        guard let close = status.lastIndex(of: ")") else { return false }
        let state = status[status.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state != "Z" && state != "X"
    }

    private static func register(_ entry: Entry) -> Registration {
        lock.lock()
        defer { lock.unlock() }
        nextNumber += 1
        entries[nextNumber] = entry
        return Registration(number: nextNumber)
    }
}
