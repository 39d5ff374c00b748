import FileFormats
import Foundation
import Glibc

/// Marks the failures of starting an external program.
public enum ExternalProcessErrorDomain {}

/// An external program that could not be found or started, or that overran its deadline: "subject: reason".
public typealias ExternalProcessError = FileError<ExternalProcessErrorDomain>

/// Starts, runs and stops external programs (ffmpeg, ffprobe, sbatch): the one place Workbench launches a process.
///
/// Our own rather than swift-subprocess: the frame sources pull raw frames from ffmpeg's stdout synchronously, in
/// fixed-size `read(2)` chunks on their own threads, and stop it with SIGTERM then SIGKILL from `close()` or
/// `deinit`; swift-subprocess offers that only as async sequences inside a closure's scope, so every frame would
/// cross an async-to-sync bridge, and a source could not outlive the call that started it.
///
/// Every child is registered with `InterruptCleanup` from its start (inside the registry's lock) until it is
/// reaped, so a signal that ends Workbench ends it too; and every wait for a child is bounded by its `Deadline`.
public enum ExternalProcess {
    /// How long Workbench waits for a child before stopping it: a run that cannot end (a program stuck on
    /// something that never comes) becomes an error naming the file, never a hang.
    public struct Deadline: Sendable, Equatable {
        /// Seconds the whole run may take, from its start; nil for no bound.
        public var total: Double?
        /// Seconds the child may go without writing to its stdout while Workbench waits to read it (a renderer's
        /// `-progress` lines, a decoder's frames); nil for no bound. A bound relative to the work: a long video
        /// takes long, but each piece of it comes soon.
        public var idle: Double?

        /// A deadline of `total` seconds for the run and `idle` seconds between outputs.
        public init(total: Double? = nil, idle: Double? = nil) {
            self.total = total
            self.idle = idle
        }

        /// No bound (sbatch, which talks to a cluster and has its own timeouts).
        public static let none = Deadline()
    }

    /// A started process, its stdout to read, and its stderr drained in the background.
    public final class Running: @unchecked Sendable {
        /// The process.
        public let process: Process
        /// Its stdout (read it with `read(into:)`, which keeps to the deadline).
        public let output: FileHandle
        /// The tail of its stderr.
        public let errorTail: StandardErrorTail
        private let name: String
        private let subject: String
        private let deadline: Deadline
        private let started = Date()
        private let registration: InterruptCleanup.Registration

        fileprivate init(
            process: Process, output: FileHandle, errorTail: StandardErrorTail, name: String, subject: String,
            deadline: Deadline, registration: InterruptCleanup.Registration
        ) {
            self.process = process
            self.output = output
            self.errorTail = errorTail
            self.name = name
            self.subject = subject
            self.deadline = deadline
            self.registration = registration
        }

        /// Reads what the child wrote next into `buffer`: the count, 0 at end of file. Waits no longer than the
        /// deadline allows; past it, the child is stopped and the error says which bound it overran.
        public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ExternalProcessError) -> Int {
            let descriptor = output.fileDescriptor
            while true {
                var wait = deadline.idle ?? .infinity
                if let total = deadline.total { wait = min(wait, total - Date().timeIntervalSince(started)) }
                if wait <= 0 { try overran() }
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let milliseconds = wait.isInfinite ? -1 : Int32(min(wait * 1000, Double(Int32.max)).rounded(.up))
                let ready = poll(&poller, 1, milliseconds)
                if ready < 0, errno == EINTR { continue }
                if ready == 0 {
                    if let total = deadline.total, Date().timeIntervalSince(started) < total, deadline.idle == nil { continue }
                    try overran()
                }
                let count = Glibc.read(descriptor, buffer.baseAddress!, buffer.count)
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                return max(count, 0)
            }
        }

        /// `read(into:)` into `array` from `offset` to its end.
        public func read(into array: inout [UInt8], from offset: Int = 0) throws(ExternalProcessError) -> Int {
            let result = array.withUnsafeMutableBytes { bytes in
                Result { () throws(ExternalProcessError) -> Int in
                    try read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[offset...]))
                }
            }
            return try result.get()
        }

        /// Waits for the child to end and reaps it: its exit status.
        @discardableResult
        public func wait() -> Int32 {
            process.waitUntilExit()
            InterruptCleanup.forget(registration)
            return process.terminationStatus
        }

        /// Ends the child: SIGTERM, then SIGKILL if it has not gone after `grace` seconds; always reaps it.
        public func stop(grace: Double = 3) {
            if process.isRunning {
                process.terminate()
                let limit = Date().addingTimeInterval(grace)
                while process.isRunning, Date() < limit { usleep(10_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            }
            wait()
        }

        private func overran() throws(ExternalProcessError) -> Never {
            stop(grace: 1)
            // Whole seconds as such, a fraction (a test's bound) with one decimal.
            func seconds(_ value: Double) -> String {
                value == value.rounded() && abs(value) < 1e9 ? "\(Int(value)) s" : String(format: "%.1f s", value)
            }
            if let total = deadline.total, Date().timeIntervalSince(started) >= total {
                throw ExternalProcessError(path: subject, reason: "\(name) did not finish within \(seconds(total)); stopped it")
            }
            throw ExternalProcessError(path: subject, reason: "\(name) made no progress for \(seconds(deadline.idle ?? 0)); stopped it")
        }
    }

    /// A finished run: exit status, all of stdout, and the last line of stderr.
    public struct Completed: Sendable {
        public let status: Int32
        public let output: [UInt8]
        public let lastErrorLine: String
    }

    /// The first executable file called `name` in the folders of `searchPath` (colon-separated, like PATH).
    public static func find(_ name: String, searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        for folder in (searchPath ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = String(folder) + "/" + name
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate)
            {
                return candidate
            }
        }
        return nil
    }

    /// Starts `executable` with stdin closed and stdout and stderr piped, in `workingDirectory` when given; the
    /// error names `subject`, the file the caller was working on.
    public static func start(
        _ executable: String, _ arguments: [String], subject: String, workingDirectory: String? = nil,
        deadline: Deadline
    ) throws(ExternalProcessError) -> Running {
        let name = URL(fileURLWithPath: executable).lastPathComponent
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory, isDirectory: true) }
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        // Started and registered in one step of the registry: an interrupt either comes first (no start) or finds it.
        let registration = try InterruptCleanup.holding { () throws(ExternalProcessError) -> InterruptCleanup.Registration in
            do {
                try process.run()
            } catch {
                throw ExternalProcessError(path: subject, reason: "cannot start \(name): \(error.localizedDescription)")
            }
            return InterruptCleanup.stopOnInterrupt(process: process.processIdentifier)
        }
        // Our copies of the write ends must go, or the reads would never see end of file.
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        return Running(
            process: process, output: outputPipe.fileHandleForReading,
            errorTail: StandardErrorTail(draining: errorPipe.fileHandleForReading), name: name, subject: subject,
            deadline: deadline, registration: registration)
    }

    /// Runs to completion, reading all of stdout while stderr drains on its own thread (neither pipe can fill up
    /// and stall the program). Past `deadline` the child is stopped and the error says so.
    public static func run(
        _ executable: String, _ arguments: [String], subject: String, workingDirectory: String? = nil,
        deadline: Deadline
    ) throws(ExternalProcessError) -> Completed {
        let running = try start(executable, arguments, subject: subject, workingDirectory: workingDirectory, deadline: deadline)
        defer { try? running.output.close() }
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = try running.read(into: &buffer)
            if count == 0 { break }
            collected.append(contentsOf: buffer[0..<count])
        }
        let status = running.wait()
        return Completed(status: status, output: collected, lastErrorLine: running.errorTail.lastLine())
    }
}
