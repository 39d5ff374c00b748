import Foundation
import XCTest
import _TestSupport
@testable import ClusterJobs

/// sbatch's side of the protocol (`--parsable` prints `id` or `id;cluster`, a refusal is a line on stderr and a
/// non-zero exit), played by a small script that records its arguments. The real sbatch runs in the cluster tests
/// of WorkbenchCLITests.
final class SlurmSubmitterTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sbatch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func sbatch(printing output: String, error: String = "", status: Int32 = 0) throws -> SlurmSubmitter {
        let path = folder.appendingPathComponent("sbatch").path
        let script = """
            #!/bin/sh
            printf '%s\\n' "$@" > '\(folder.path)/arguments'
            printf '\(output)'
            printf '\(error)' >&2
            exit \(status)
            """
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return try SlurmSubmitter.locate(searchPath: "/nonexistent:" + folder.path)
    }

    private func recordedArguments() throws -> [String] {
        try String(contentsOf: folder.appendingPathComponent("arguments"), encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func testSubmitsParsableAndReturnsTheJobId() throws {
        let submitter = try sbatch(printing: "4711\\n")
        XCTAssertEqual(try submitter.submit(scriptPath: "/jobs/array.sbatch"), "4711")
        XCTAssertEqual(try recordedArguments(), ["--parsable", "/jobs/array.sbatch"])
    }

    func testDependencyIsAfterOKOfTheGivenJobAndTheClusterNameIsDropped() throws {
        let submitter = try sbatch(printing: "4712;cluster-a\\n")
        XCTAssertEqual(try submitter.submit(scriptPath: "/jobs/merge.sbatch", afterOK: "4711"), "4712")
        XCTAssertEqual(try recordedArguments(), ["--parsable", "--dependency=afterok:4711", "/jobs/merge.sbatch"])
    }

    func testARefusalIsSbatchsLastLine() throws {
        let submitter = try sbatch(printing: "", error: "sbatch: warning: something\\nsbatch: error: invalid partition specified: nope\\n", status: 1)
        XCTAssertThrowsError(try submitter.submit(scriptPath: "/jobs/array.sbatch")) { error in
            XCTAssertEqual("\(error)", "/jobs/array.sbatch: sbatch refused the job: sbatch: error: invalid partition specified: nope")
        }
    }

    func testOutputThatIsNoJobIdIsAnError() throws {
        let submitter = try sbatch(printing: "Submitted batch job 12\\n")
        XCTAssertThrowsError(try submitter.submit(scriptPath: "/jobs/array.sbatch")) { error in
            XCTAssertEqual("\(error)", "/jobs/array.sbatch: sbatch printed 'Submitted batch job 12' instead of a job id")
        }
    }

    func testMissingSbatchSaysWhereToRunOrHowToSeeTheScripts() {
        XCTAssertThrowsError(try SlurmSubmitter.locate(searchPath: folder.path)) { error in
            // The CLI words the hint: "(or print the scripts with --dry-run)" (ShardingCommandTests).
            XCTAssertEqual("\(error)", "sbatch not found on PATH: run this on a Slurm login node")
            XCTAssertEqual((error as? ClusterJobError)?.hint, .printScriptsInstead)
        }
    }
}
