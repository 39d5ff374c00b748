import Foundation
import XCTest
import _TestSupport
@testable import ClusterJobs

/// Every field of a batch script under hostile values (issue 23, item 2): refused with one line naming the value,
/// or written so that `bash -n` accepts the script, every line is header, export or the exec, and running it
/// with a stub program runs no injected command.
final class SlurmScriptHostileTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A stub for the program: records its arguments, each ended by a NUL, so the test sees what arrived.
    private func stub() throws -> String {
        let path = folder.appendingPathComponent("stub").path
        try "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$(dirname \"$0\")/arguments\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    private enum Field: CaseIterable { case description, exportedValue, commandWord, logFile }

    private func job(_ field: Field, _ value: String, program: String) throws -> SlurmJob {
        SlurmJob(
            name: "workbench-label", arrayTasks: 2, resources: try SlurmResources(),
            logFile: field == .logFile ? "/shared/" + value : "/shared/logs/%A_%a.log",
            environment: [ExportedVariable(name: "WORKBENCH_CACHE", value: field == .exportedValue ? value : "/cache")],
            command: [ScriptWord(program), ScriptWord("label"), ScriptWord(field == .commandWord ? value : "plain"), .arrayShard(count: 2)],
            description: ["Written by a test: results in \(field == .description ? value : "/results")."])
    }

    func testEveryFieldRefusesControlsOrQuotesEverythingElse() throws {
        let program = try stub()
        let marker = folder.appendingPathComponent("injected").path
        var executed = 0
        for field in Field.allCases {
            HostileNames.check("\(field)", count: 20, marker: marker) { value in
                let script: String
                do {
                    script = try job(field, value, program: program).script()
                } catch {
                    let line = "\(error)"
                    if line.contains("\n") || line.contains("\r") { return "the refusal is not one line: \(HostileNames.escaped(line))" }
                    let hasControl = value.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
                    if field != .logFile && !hasControl { return "refused a value without control characters: \(line)" }
                    return nil
                }
                if value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                    return "a control character was written into the script"
                }
                if let problem = BatchScriptCheck.lineProblem(script) { return problem }
                // No separate `bash -n` (the quick tier's time: one bash a value, not two): bash parses each command
                // before running it, so a syntax error anywhere stops the run with status 2, and the exec line,
                // the last, never runs; a command injected before it leaves the marker.
                let run = try BatchScriptCheck.run(script, in: folder)
                executed += 1
                if run.status != 0 { return "the script failed: \(run.standardError)" }
                if FileManager.default.fileExists(atPath: marker) { return "an injected command ran" }
                let arguments = try String(contentsOfFile: folder.appendingPathComponent("arguments").path, encoding: .utf8)
                    .split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
                if field == .commandWord && (arguments.count < 2 || arguments[1] != value) { return "the program got \(arguments), not the value" }
                return nil
            }
        }
        XCTAssertGreaterThan(executed, 40, "most hostile values are quoted and run, not refused")
    }

    func testANewlineInADescribedPathIsRefusedNamingIt() {
        XCTAssertThrowsError(try job(.description, "res\ntouch /tmp/x #", program: "/bin/true").script()) { error in
            XCTAssertEqual(
                "\(error)",
                #"Written by a test: results in res\ntouch /tmp/x #.: the description holds a control character (\n), which a batch script cannot carry; choose a name without it"#
            )
        }
        XCTAssertThrowsError(try SlurmJob.checkScriptValue("/cache\u{1B}[2J", what: "feature cache folder")) { error in
            XCTAssertEqual(
                "\(error)",
                #"/cache\u001B[2J: the feature cache folder holds a control character (\u001B), which a batch script cannot carry; choose a name without it"#
            )
        }
    }
}
