import Foundation

/// The locations of the ffmpeg and ffprobe executables Labeling runs.
///
/// Found by walking PATH ourselves rather than letting `Process` fail, so a missing tool becomes a clear,
/// actionable error instead of a launch failure.
public struct ExternalTools: Sendable, Equatable {
    /// Absolute path of ffmpeg.
    public let ffmpeg: String
    /// Absolute path of ffprobe.
    public let ffprobe: String

    /// Uses explicit executable paths (no checks).
    public init(ffmpeg: String, ffprobe: String) {
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe
    }

    /// Finds both tools in the folders of `searchPath` (colon-separated, like PATH).
    ///
    /// `subject` is the file the caller was about to work on; the error names it so the message reads
    /// "movie.mp4: ffmpeg not found on PATH; run scripts/setup.sh".
    public static func locate(
        for subject: String,
        searchPath: String? = ProcessInfo.processInfo.environment["PATH"]
    ) throws(VideoError) -> ExternalTools {
        let folders = (searchPath ?? "").split(separator: ":").map(String.init)
        func find(_ name: String) throws(VideoError) -> String {
            for folder in folders where !folder.isEmpty {
                let candidate = folder + "/" + name
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                   FileManager.default.isExecutableFile(atPath: candidate) {
                    return candidate
                }
            }
            throw VideoError(.toolNotFound, path: subject, reason: "\(name) not found on PATH; run scripts/setup.sh")
        }
        return ExternalTools(ffmpeg: try find("ffmpeg"), ffprobe: try find("ffprobe"))
    }
}

/// Collects a child process's stderr on a background thread so the child never blocks on a full pipe, keeping
/// only the tail (ffmpeg can be chatty and the last line is what explains a failure).
final class StandardErrorTail: @unchecked Sendable {
    private let lock = NSLock()
    private var tail: [UInt8] = []
    private let finished = DispatchSemaphore(value: 0)
    private static let keptBytes = 16 * 1024

    /// Starts draining `handle` until end of file.
    init(draining handle: FileHandle) {
        let descriptor = handle.fileDescriptor
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                lock.lock()
                tail.append(contentsOf: buffer[0..<count])
                if tail.count > Self.keptBytes { tail.removeFirst(tail.count - Self.keptBytes) }
                lock.unlock()
            }
            finished.signal()
        }
    }

    /// Waits (bounded) for the drain to reach end of file, then returns the last non-empty line.
    func lastLine(waitingUpTo seconds: Double = 2) -> String {
        _ = finished.wait(timeout: .now() + seconds)
        finished.signal()  // let later callers through too
        lock.lock()
        let text = String(decoding: tail, as: UTF8.self)
        lock.unlock()
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return lines.last ?? ""
    }
}

/// Runs tools to completion and captures their output; the one place Labeling launches processes.
enum ToolRunner {
    /// The result of a finished run.
    struct Result {
        let status: Int32
        let output: [UInt8]
        let lastErrorLine: String
    }

    /// Starts `executable` with stdin closed, stdout and stderr piped. Throws `.toolFailed` naming `subject`.
    static func start(_ executable: String, _ arguments: [String], subject: String)
        throws(VideoError) -> (process: Process, output: FileHandle, errorTail: StandardErrorTail)
    {
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
            throw VideoError(.toolFailed, path: subject, reason: "cannot start \(name): \(error.localizedDescription)")
        }
        // Our copies of the write ends must go, or the reads below would never see end of file.
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        return (process, outputPipe.fileHandleForReading, StandardErrorTail(draining: errorPipe.fileHandleForReading))
    }

    /// Runs to completion, reading all of stdout.
    static func run(_ executable: String, _ arguments: [String], subject: String) throws(VideoError) -> Result {
        let (process, output, errorTail) = try start(executable, arguments, subject: subject)
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output.fileDescriptor, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            collected.append(contentsOf: buffer[0..<count])
        }
        process.waitUntilExit()
        try? output.close()
        return Result(status: process.terminationStatus, output: collected, lastErrorLine: errorTail.lastLine())
    }

    /// Ends a running process: SIGTERM, then SIGKILL if it has not gone after `grace` seconds; always reaps it.
    static func stop(_ process: Process, grace: Double = 3) {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }
}
