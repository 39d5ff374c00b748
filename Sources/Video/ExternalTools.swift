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

/// Runs ffmpeg and ffprobe through `ExternalProcesses`, with failures as `VideoError`s naming `subject`, and the
/// deadlines every run of them keeps.
enum ToolRunner {
    typealias Result = ExternalProcess.Completed
    typealias Running = ExternalProcess.Running
    typealias Deadline = ExternalProcess.Deadline

    /// What a quick question may take (ffprobe reading a file's header, `ffmpeg -encoders`): seconds when it
    /// takes anything, so a minute means it will never answer.
    static let question = Deadline(total: 60)
    /// What a renderer or decoder may go without writing a progress line or a frame: far beyond the slowest frame
    /// of a 4K encode on a busy machine, so a longer silence means it is stuck.
    static let work = Deadline(idle: 600)
    /// What drawing on one picture may take: seconds even for the largest picture a reader accepts.
    static let picture = Deadline(total: 300)

    /// Starts `executable` with stdin closed, stdout and stderr piped, in `workingDirectory` when given. Throws
    /// `.toolFailed` naming `subject`.
    static func start(
        _ executable: String, _ arguments: [String], subject: String, workingDirectory: String? = nil,
        deadline: Deadline = work
    ) throws(VideoError) -> Running {
        do {
            return try ExternalProcess.start(
                executable, arguments, subject: subject, workingDirectory: workingDirectory, deadline: deadline)
        } catch {
            throw VideoError(.toolFailed, path: error.path, reason: error.reason)
        }
    }

    /// Runs to completion, reading all of stdout, within `deadline`.
    static func run(
        _ executable: String, _ arguments: [String], subject: String, workingDirectory: String? = nil,
        deadline: Deadline
    ) throws(VideoError) -> Result {
        do {
            return try ExternalProcess.run(
                executable, arguments, subject: subject, workingDirectory: workingDirectory, deadline: deadline)
        } catch {
            throw VideoError(.toolFailed, path: error.path, reason: error.reason)
        }
    }

    /// Reads the child's next output into `buffer` from `offset`, within its deadline.
    static func read(_ running: Running, into buffer: inout [UInt8], from offset: Int = 0) throws(VideoError) -> Int {
        do {
            return try running.read(into: &buffer, from: offset)
        } catch {
            throw VideoError(.toolFailed, path: error.path, reason: error.reason)
        }
    }
}
