import Foundation

/// Hands batch scripts to Slurm with `sbatch --parsable`, the one place this module starts a process.
public struct SlurmSubmitter: Sendable {
    /// The `sbatch` executable.
    public let sbatch: String

    /// Uses the `sbatch` at `path`.
    public init(sbatch path: String) { sbatch = path }

    /// Finds `sbatch` in the folders of `searchPath` (colon-separated, like PATH).
    public static func locate(searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) throws(ClusterJobError) -> SlurmSubmitter {
        for folder in (searchPath ?? "").split(separator: ":") where !folder.isEmpty {
            let candidate = String(folder) + "/sbatch"
            if FileManager.default.isExecutableFile(atPath: candidate) { return SlurmSubmitter(sbatch: candidate) }
        }
        throw ClusterJobError(reason: "sbatch not found on PATH: run this on a Slurm login node (or print the scripts with --dry-run)")
    }

    /// Submits the script at `scriptPath`, to start only after every task of job `afterOK` has succeeded when given;
    /// returns the new job's id. sbatch's own complaint (a bad partition, a time over the limit) is the error.
    public func submit(scriptPath: String, afterOK dependency: String? = nil) throws(ClusterJobError) -> String {
        var arguments = ["--parsable"]
        if let dependency { arguments.append("--dependency=afterok:\(dependency)") }
        arguments.append(scriptPath)
        let outcome = try run(arguments, subject: scriptPath)
        guard outcome.status == 0 else {
            let message = outcome.errorLines.last ?? "exit status \(outcome.status)"
            throw ClusterJobError(path: scriptPath, reason: "sbatch refused the job: \(message)")
        }
        // --parsable prints "id" or "id;cluster".
        let firstLine = outcome.output.split(separator: "\n").first.map(String.init) ?? ""
        let id = String(firstLine.split(separator: ";").first ?? "")
        guard Shard.number(id) != nil else {
            throw ClusterJobError(path: scriptPath, reason: "sbatch printed '\(firstLine)' instead of a job id")
        }
        return id
    }

    private struct Outcome {
        var status: Int32
        var output: String
        var errorLines: [String]
    }

    private func run(_ arguments: [String], subject: String) throws(ClusterJobError) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: sbatch)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw ClusterJobError(path: subject, reason: "cannot start \(sbatch): \(error.localizedDescription)")
        }
        // Both pipes drained at once, so neither can fill up and stall sbatch.
        let errorText = PipeReader(errors.fileHandleForReading)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorLines = errorText.text().split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return Outcome(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self), errorLines: errorLines)
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Waits for the end of the pipe and returns what came through it.
    func text() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}
