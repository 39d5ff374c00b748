import ExternalProcesses
import Foundation

/// One rendering run of ffmpeg into a `RenderTarget`, with its progress read from `-progress pipe:1` (the
/// arguments must ask for it): `frame=N` lines on stdout, turned into the fraction of `outputFrames` done.
/// On failure the temporary file is removed and the error names `subject` with ffmpeg's last line.
enum FFmpegRun {
    static func run(
        tools: ExternalTools, arguments: [String], subject: String, target: RenderTarget, outputFrames: Int,
        what: String, progress: ((Double) -> Void)?
    ) throws(VideoError) {
        let running: (process: Process, output: FileHandle, errorTail: StandardErrorTail)
        do throws(VideoError) {
            running = try ToolRunner.start(tools.ffmpeg, arguments, subject: subject)
        } catch {
            target.abandon()
            throw error
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(running.output.fileDescriptor, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if line.hasPrefix("frame="), let frame = Int(line.dropFirst(6)), outputFrames > 0 {
                    progress?(min(1, Double(frame) / Double(outputFrames)))
                }
            }
        }
        running.process.waitUntilExit()
        try? running.output.close()
        let status = running.process.terminationStatus
        guard status == 0 else {
            target.abandon()
            let line = running.errorTail.lastLine()
            throw VideoError(
                .toolFailed, path: subject, reason: "ffmpeg could not \(what) (exit status \(status))" + (line.isEmpty ? "" : ": \(line)"))
        }
        try target.finish()
    }
}
