import Foundation
import XCTest
import _TestSupport
@testable import ClusterJobs

final class SlurmScriptTests: XCTestCase {
    private func labelJob(resources: SlurmResources? = nil) throws -> SlurmJob {
        SlurmJob(
            name: "workbench-label", arrayTasks: 4,
            resources: try resources ?? SlurmResources(partition: "gpu,cpu", timeLimit: "1-02:00:00", cpusPerTask: 8),
            logFile: "/shared/jobs/logs/label-%A_%a.log",
            environment: [ExportedVariable(name: "WORKBENCH_CACHE", value: "/shared/cache dir")],
            command: [
                ScriptWord("/opt/workbench/bin/workbench"), ScriptWord("label"), ScriptWord("/shared/Kids' Model.wbmodel"),
                ScriptWord("--shard"), .arrayShard(count: 4),
            ],
            description: ["Written by workbench slurm label: 4 tasks."])
    }

    func testArrayScriptIsTheHeaderThenOneQuotedExec() throws {
        // Written out by hand from sbatch's documented options.
        let expected = """
            #!/bin/bash
            # Written by workbench slurm label: 4 tasks.
            #SBATCH --job-name=workbench-label
            #SBATCH --array=0-3
            #SBATCH --output=/shared/jobs/logs/label-%A_%a.log
            #SBATCH --open-mode=append
            #SBATCH --ntasks=1
            #SBATCH --cpus-per-task=8
            #SBATCH --partition=gpu,cpu
            #SBATCH --time=1-02:00:00
            #SBATCH --requeue
            set -eu
            export WORKBENCH_CACHE='/shared/cache dir'
            exec '/opt/workbench/bin/workbench' 'label' '/shared/Kids'\\'' Model.wbmodel' '--shard' "${SLURM_ARRAY_TASK_ID}"'/4'

            """
        XCTAssertEqual(try labelJob().script(), expected)
    }

    func testSingleJobWithDefaultsHasNoArrayPartitionOrTime() throws {
        let job = SlurmJob(
            name: "workbench-label-merge", arrayTasks: nil, resources: try SlurmResources(),
            logFile: "/jobs/logs/merge-%j.log", environment: [],
            command: [ScriptWord("/bin/workbench"), ScriptWord("label"), ScriptWord("merge")], description: [])
        let script = try job.script()
        XCTAssertFalse(script.contains("--array"))
        XCTAssertFalse(script.contains("--partition"))
        XCTAssertFalse(script.contains("--time"))
        XCTAssertTrue(script.contains("#SBATCH --cpus-per-task=1\n"))
        XCTAssertTrue(script.hasSuffix("exec '/bin/workbench' 'label' 'merge'\n"))
    }

    /// bash itself is the reference for quoting: each word must arrive exactly as given.
    func testEveryWordReachesTheProgramUnchangedThroughBash() throws {
        let words = [
            "plain", "two words", "it's", "'", "''", "\"double\"", "$HOME", "`date`", "back\\slash", "new\nline",
            "tab\there", "*", "ünïcødé 🎬", "", "-n", "%A_%a",
        ]
        let script =
            "printf '%s\\0' " + words.map { ScriptWord($0).shellText }.joined(separator: " ") + " " + ScriptWord.arrayShard(count: 4).shellText
        let outcome = try WorkbenchBinary.runProcess("/bin/bash", ["-c", script], environment: ["SLURM_ARRAY_TASK_ID": "3", "HOME": "/nowhere"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let received = outcome.standardOutput.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init)
        XCTAssertEqual(received, words + ["3/4"])
    }

    func testGeneratedScriptIsValidBash() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("script-\(UUID().uuidString).sh")
        defer { try? FileManager.default.removeItem(at: folder) }
        try labelJob().script().write(to: folder, atomically: true, encoding: .utf8)
        let check = try WorkbenchBinary.runProcess("/bin/bash", ["-n", folder.path], environment: [:])
        XCTAssertEqual(check.status, 0, check.standardError)
    }

    func testValuesAnSBATCHLineCannotCarryAreRefused() throws {
        XCTAssertThrowsError(try SlurmResources(partition: "my partition")) { error in
            XCTAssertEqual("\(error)", "partition 'my partition' is not a Slurm partition name (letters, digits, - _ . and , between names)")
        }
        XCTAssertThrowsError(try SlurmResources(timeLimit: "2h")) { error in
            XCTAssertEqual("\(error)", "time limit '2h' is not a Slurm time (minutes, MM:SS, HH:MM:SS, D-HH or D-HH:MM:SS)")
        }
        XCTAssertThrowsError(try SlurmResources(cpusPerTask: 0)) { error in
            XCTAssertEqual("\(error)", "CPUs per task must be at least 1, not 0")
        }
        var job = try labelJob()
        job.logFile = "/shared/my jobs/label-%A_%a.log"
        XCTAssertThrowsError(try job.script()) { error in
            XCTAssertEqual(
                "\(error)",
                "/shared/my jobs/label-%A_%a.log: the log path holds \" \", which an #SBATCH line cannot carry; choose a folder without it")
        }
        job.logFile = "logs/label-%A_%a.log"
        XCTAssertThrowsError(try job.script()) { error in
            XCTAssertEqual("\(error)", "logs/label-%A_%a.log: the log path must be absolute")
        }
        job = try labelJob()
        job.environment = [ExportedVariable(name: "1BAD", value: "x")]
        XCTAssertThrowsError(try job.script()) { error in
            XCTAssertEqual("\(error)", "'1BAD' is not an environment variable name")
        }
        job = try labelJob()
        job.name = "two words"
        XCTAssertThrowsError(try job.script())
    }
}
