import ExternalProcesses
import Foundation

/// One rendering run of ffmpeg into a `RenderTarget`, with its progress read from `-progress pipe:1` (the
/// arguments must ask for it): `frame=N` lines on stdout, turned into the fraction of `outputFrames` done. The
/// progress lines are also what keeps ffmpeg within `ToolRunner.work`, the bound on a silence.
/// On failure the temporary file is removed and the error names `subject` with ffmpeg's last line.
enum FFmpegRun {
    static func run(
        tools: ExternalTools, arguments: [String], subject: String, workingDirectory: String? = nil, target: RenderTarget,
        outputFrames: Int, what: String, progress: ((Double) -> Void)?
    ) throws(VideoError) {
        do {
            try encode(
                tools: tools, arguments: arguments, subject: subject, workingDirectory: workingDirectory,
                outputFrames: outputFrames, what: what, progress: progress)
        } catch {
            target.abandon()
            throw error
        }
        try target.finish()
    }

    private static func encode(
        tools: ExternalTools, arguments: [String], subject: String, workingDirectory: String?, outputFrames: Int,
        what: String, progress: ((Double) -> Void)?
    ) throws(VideoError) {
        let running = try ToolRunner.start(tools.ffmpeg, arguments, subject: subject, workingDirectory: workingDirectory)
        defer { try? running.output.close() }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try ToolRunner.read(running, into: &buffer)
            if count == 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if line.hasPrefix("frame="), let frame = Int(line.dropFirst(6)), outputFrames > 0 {
                    progress?(min(1, Double(frame) / Double(outputFrames)))
                }
            }
        }
        let status = running.wait()
        guard status == 0 else {
            let line = running.errorTail.lastLine()
            throw VideoError(
                .toolFailed, path: subject, reason: "ffmpeg could not \(what) (exit status \(status))" + (line.isEmpty ? "" : ": \(line)"))
        }
    }
}
