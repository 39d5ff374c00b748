import FileFormats
import Foundation

/// Marks the failures of starting an external program.
public enum ExternalProcessErrorDomain {}

/// An external program that could not be found or started: "subject: cannot start NAME: reason".
public typealias ExternalProcessError = FileError<ExternalProcessErrorDomain>

/// Starts, runs and stops external programs (ffmpeg, ffprobe, sbatch): the one place Workbench launches a process.
///
/// Our own rather than swift-subprocess: the frame sources pull raw frames from ffmpeg's stdout synchronously, in
/// fixed-size `read(2)` chunks on their own threads, and stop it with SIGTERM then SIGKILL from `close()` or
/// `deinit`; swift-subprocess offers that only as async sequences inside a closure's scope, so every frame would
/// cross an async-to-sync bridge, and a source could not outlive the call that started it.
public enum ExternalProcess {
    /// A started process, its stdout to read, and its stderr drained in the background.
    public struct Running {
        public let process: Process
        public let output: FileHandle
        public let errorTail: StandardErrorTail
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

    /// Starts `executable` with stdin closed and stdout and stderr piped; the error names `subject`, the file the
    /// caller was working on.
    public static func start(_ executable: String, _ arguments: [String], subject: String) throws(ExternalProcessError) -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        do {
            try process.run()
        } catch {
            let name = URL(fileURLWithPath: executable).lastPathComponent
            throw ExternalProcessError(path: subject, reason: "cannot start \(name): \(error.localizedDescription)")
        }
        // Our copies of the write ends must go, or the reads would never see end of file.
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        return Running(
            process: process, output: outputPipe.fileHandleForReading,
            errorTail: StandardErrorTail(draining: errorPipe.fileHandleForReading))
    }

    /// Runs to completion, reading all of stdout while stderr drains on its own thread (neither pipe can fill up
    /// and stall the program).
    public static func run(_ executable: String, _ arguments: [String], subject: String) throws(ExternalProcessError) -> Completed {
        let running = try start(executable, arguments, subject: subject)
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(running.output.fileDescriptor, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            collected.append(contentsOf: buffer[0..<count])
        }
        running.process.waitUntilExit()
        try? running.output.close()
        return Completed(
            status: running.process.terminationStatus, output: collected,
            lastErrorLine: running.errorTail.lastLine())
    }

    /// Ends a running process: SIGTERM, then SIGKILL if it has not gone after `grace` seconds; always reaps it.
    public static func stop(_ process: Process, grace: Double = 3) {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }
}
