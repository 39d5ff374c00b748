import ExternalProcesses
import Foundation

/// Hands batch scripts to Slurm with `sbatch --parsable` (started through `ExternalProcesses`).
public struct SlurmSubmitter: Sendable {
    /// The `sbatch` executable.
    public let sbatch: String

    /// Uses the `sbatch` at `path`.
    public init(sbatch path: String) { sbatch = path }

    /// Finds `sbatch` in the folders of `searchPath` (colon-separated, like PATH); without it the error's hint is
    /// `ErrorHint.printScriptsInstead`.
    public static func locate(searchPath: String? = ProcessInfo.processInfo.environment["PATH"]) throws(ClusterJobError) -> SlurmSubmitter {
        if let found = ExternalProcess.find("sbatch", searchPath: searchPath) { return SlurmSubmitter(sbatch: found) }
        throw ClusterJobError(reason: "sbatch not found on PATH: run this on a Slurm login node", hint: .printScriptsInstead)
    }

    /// Submits the script at `scriptPath`, to start only after every task of job `afterOK` has succeeded when given;
    /// returns the new job's id. sbatch's own complaint (a bad partition, a time over the limit) is the error.
    public func submit(scriptPath: String, afterOK dependency: String? = nil) throws(ClusterJobError) -> String {
        let arguments = Self.arguments(scriptPath: scriptPath, afterOK: dependency)
        let outcome = try run(arguments, subject: scriptPath)
        guard outcome.status == 0 else {
            let message = outcome.lastErrorLine.isEmpty ? "exit status \(outcome.status)" : outcome.lastErrorLine
            throw ClusterJobError(path: scriptPath, reason: "sbatch refused the job: \(message)")
        }
        // --parsable prints "id" or "id;cluster".
        let firstLine = String(decoding: outcome.output, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        let id = String(firstLine.split(separator: ";").first ?? "")
        guard Shard.number(id) != nil else {
            throw ClusterJobError(path: scriptPath, reason: "sbatch printed '\(firstLine)' instead of a job id")
        }
        return id
    }

    /// sbatch's arguments for `scriptPath`, waiting for job `afterOK` when given.
    static func arguments(scriptPath: String, afterOK dependency: String?) -> [String] {
        ["--parsable"] + (dependency.map { ["--dependency=afterok:\($0)"] } ?? []) + [scriptPath]
    }

    /// The submission as a person would type it (for `--dry-run`), waiting for job `afterOK` when given.
    public static func commandLine(scriptPath: String, afterOK dependency: String?) -> String {
        (["sbatch"] + arguments(scriptPath: scriptPath, afterOK: dependency)).joined(separator: " ")
    }

    private func run(_ arguments: [String], subject: String) throws(ClusterJobError) -> ExternalProcess.Completed {
        do {
            // sbatch retries an unreachable controller on its own for a while; five minutes is past any of that.
            return try ExternalProcess.run(sbatch, arguments, subject: subject, deadline: ExternalProcess.Deadline(total: 300))
        } catch {
            throw ClusterJobError(path: error.path, reason: error.reason)
        }
    }
}
