import ExternalProcesses
import Foundation

/// The locations of the ffmpeg and ffprobe executables the frame sources and renderers run.
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
        func find(_ name: String) throws(VideoError) -> String {
            guard let path = ExternalProcess.find(name, searchPath: searchPath) else {
                throw VideoError(.toolNotFound, path: subject, reason: "\(name) not found on PATH; run scripts/setup.sh")
            }
            return path
        }
        return ExternalTools(ffmpeg: try find("ffmpeg"), ffprobe: try find("ffprobe"))
    }
}

/// Runs ffmpeg and ffprobe through `ExternalProcesses`, with failures as `VideoError`s naming `subject`.
enum ToolRunner {
    typealias Result = ExternalProcess.Completed

    /// Starts `executable` with stdin closed, stdout and stderr piped. Throws `.toolFailed` naming `subject`.
    static func start(_ executable: String, _ arguments: [String], subject: String)
        throws(VideoError) -> (process: Process, output: FileHandle, errorTail: StandardErrorTail)
    {
        do {
            let running = try ExternalProcess.start(executable, arguments, subject: subject)
            return (running.process, running.output, running.errorTail)
        } catch {
            throw VideoError(.toolFailed, path: error.path, reason: error.reason)
        }
    }

    /// Runs to completion, reading all of stdout.
    static func run(_ executable: String, _ arguments: [String], subject: String) throws(VideoError) -> Result {
        do {
            return try ExternalProcess.run(executable, arguments, subject: subject)
        } catch {
            throw VideoError(.toolFailed, path: error.path, reason: error.reason)
        }
    }

    /// Ends a running process: SIGTERM, then SIGKILL after `grace` seconds; always reaps it.
    static func stop(_ process: Process, grace: Double = 3) { ExternalProcess.stop(process, grace: grace) }
}
