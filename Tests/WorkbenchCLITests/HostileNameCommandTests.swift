import Foundation
import XCTest
import _TestSupport

/// Names that act instead of showing, through the binary (issue 23, items 2 and 9): a label folder named with
/// terminal escapes and a tab, another with a right-to-left override, through `train`, `classify` and `label`
/// (terminal lines, the HTML pages, WebVTT, the burned-in review copy); paths with a line feed or shell syntax
/// through `slurm label` and `slurm features`.
final class HostileNameCommandTests: XCTestCase {
    /// Clears the screen and retitles the window, then a tab: the label of the tiny dataset's cats.
    static let escapeLabel = "\u{1B}[2J\u{1B}]0;owned\u{07}Cat\tstripes"
    /// Reverses what follows: the label of its espressos.
    static let overrideLabel = "\u{202E}Espresso"

    struct Fixture {
        var base: URL
        var dataset: URL
        var model: URL
        var train: WorkbenchBinary.Outcome
        var environment: [String: String]
    }

    nonisolated(unsafe) private static var made: Result<Fixture, Error>?

    private func fixture() throws -> Fixture {
        if Self.made == nil { Self.made = Result { try Self.makeFixture() } }
        return try XCTUnwrap(Self.made).get()
    }

    override class func tearDown() {
        if case .success(let fixture)? = Self.made { try? FileManager.default.removeItem(at: fixture.base) }
        super.tearDown()
    }

    private static func makeFixture() throws -> Fixture {
        let base = try WorkbenchBinary.temporaryFolder()
        let environment = WorkbenchBinary.unshardedEnvironment(cache: base.appendingPathComponent("cache"))
        let dataset = base.appendingPathComponent("dataset")
        try TestMedia.tinyDataset(at: dataset, labels: (escapeLabel, overrideLabel), environment: environment)
        let model = base.appendingPathComponent("Names.wbmodel")
        let train = try WorkbenchBinary.runProcess(
            try WorkbenchBinary.path(), ["train", dataset.path, "-o", model.path, "--verbose"],
            environment: environment)
        try TestMedia.check(train, "train")
        return Fixture(base: base, dataset: dataset, model: model, train: train, environment: environment)
    }

    private func run(
        _ arguments: [String], _ fixture: Fixture, environment extra: [String: String] = [:],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> WorkbenchBinary.Outcome {
        try WorkbenchBinary.runProcess(
            try WorkbenchBinary.path(file: file, line: line), arguments,
            environment: fixture.environment.merging(extra) { $1 })
    }

    /// Both outputs free of raw control and bidi characters, and the label shown escaped.
    private func assertTerminalSafe(_ outcome: WorkbenchBinary.Outcome, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(outcome.status, 0, outcome.standardError, file: file, line: line)
        for (stream, text) in [("stdout", outcome.standardOutput), ("stderr", outcome.standardError)] {
            XCTAssertNil(HostileNames.terminalProblem(text), "\(what) \(stream)", file: file, line: line)
        }
        XCTAssertTrue(
            (outcome.standardOutput + outcome.standardError).contains(#"\u001B[2J\u001B]0;owned\u0007Cat"#),
            "\(what) shows the label escaped", file: file, line: line)
    }

    // MARK: - Item 9: terminal lines, pages, captions

    func testTrainAndClassifyWriteNoRawEscapeToTheTerminal() throws {
        let fixture = try fixture()
        assertTerminalSafe(fixture.train, "train")
        let classify = try run(["classify", fixture.model.path, fixture.dataset.appendingPathComponent("Testing Data").path], fixture)
        assertTerminalSafe(classify, "classify")
        XCTAssertTrue(classify.standardOutput.contains(#"\u202EEspresso"#), "the override shown, not obeyed")
        let json = try run(["classify", fixture.model.path, fixture.dataset.appendingPathComponent("Testing Data").path, "--json"], fixture)
        XCTAssertEqual(json.status, 0, json.standardError)
        let first = try XCTUnwrap(json.standardOutput.split(separator: "\n").first)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        XCTAssertNotNil(
            object.values.first { "\($0)".contains(Self.escapeLabel) || "\($0)".contains(Self.overrideLabel) },
            "--json keeps the names exactly (escaped by JSON itself)")
    }

    func testTrainingPageIsolatesTheOverriddenLabelFromItsNumbers() throws {
        let fixture = try fixture()
        let page = fixture.model.deletingPathExtension().appendingPathExtension("html").path
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains(Self.overrideLabel), "the label is on the page")
        XCTAssertNil(HostileNames.htmlBidiProblem(html))
        let check = try PageCheck.run(page: page)
        XCTAssertEqual(check.consoleErrors, [])
        XCTAssertTrue(check.text.contains(Self.overrideLabel))
        XCTAssertNil(HostileNames.bidiProblem(check.text), "in the page's rendered text, every override sits inside an isolate")
    }

    func testLabelWritesSafeLinesIsolatedCuesAndABurnedInCopyOfAnyLabel() throws {
        let fixture = try fixture()
        let work = fixture.base.appendingPathComponent("label-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let pictures =
            try TestMedia.pictures(fixture.dataset.appendingPathComponent("Training Data/\(Self.escapeLabel)")).prefix(2)
            + TestMedia.pictures(fixture.dataset.appendingPathComponent("Training Data/\(Self.overrideLabel)")).prefix(2)
        let movie = work.appendingPathComponent("movie.mp4")
        try TestMedia.video(pictures: Array(pictures), seconds: 2, framesPerSecond: 5, to: movie, environment: fixture.environment)
        let page = work.appendingPathComponent("labels.html").path, subtitles = work.appendingPathComponent("movie.vtt").path
        let annotated = work.appendingPathComponent("annotated.mp4").path
        let outcome = try run(
            [
                "label", fixture.model.path, movie.path, "--html", page, "--vtt", subtitles, "--annotate", annotated,
                "--summary",
            ], fixture)
        assertTerminalSafe(outcome, "label")
        XCTAssertTrue(FileManager.default.fileExists(atPath: annotated), "the review copy is written although a label holds a tab")
        let cues = try WebVTTFile.parse(try String(contentsOfFile: subtitles, encoding: .utf8))
        XCTAssertFalse(cues.isEmpty)
        for cue in cues { XCTAssertNil(HostileNames.bidiProblem(cue.text), cue.text) }
        XCTAssertTrue(cues.contains { $0.text.hasPrefix("\u{2068}\(Self.overrideLabel)\u{2069} (") }, "the label isolated from its percentage")
        XCTAssertNil(HostileNames.htmlBidiProblem(try String(contentsOfFile: page, encoding: .utf8)))
    }

    // MARK: - Item 2: Slurm scripts

    func testSlurmRefusesALineFeedInAnyPathNamingIt() throws {
        let fixture = try fixture()
        let jobs = fixture.base.appendingPathComponent("jobs-\(UUID().uuidString)")
        let movie = fixture.base.appendingPathComponent("frames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: movie, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: try XCTUnwrap(TestMedia.pictures(fixture.dataset.appendingPathComponent("Testing Data/\(Self.overrideLabel)")).first),
            to: movie.appendingPathComponent("1.png"))
        let marker = fixture.base.appendingPathComponent("injected").path
        let hostile = "res\ntouch \(marker) #"
        let absolute = fixture.base.path + "/" + hostile
        let cases: [(arguments: [String], environment: [String: String], what: String)] = [
            (["label", fixture.model.path, movie.path, "--results", absolute], [:], "results folder"),
            (["label", fixture.model.path, movie.path, "--movie-data", absolute], [:], "MovieData file"),
            (["features", fixture.dataset.path], ["WORKBENCH_CACHE": absolute], "feature cache folder (WORKBENCH_CACHE)"),
        ]
        for (arguments, environment, what) in cases {
            let outcome = try run(
                ["slurm"] + arguments + ["--tasks", "1", "--job-folder", jobs.path, "--dry-run"], fixture, environment: environment)
            XCTAssertEqual(outcome.status, 1, outcome.standardOutput)
            XCTAssertEqual(
                outcome.errorLines,
                [
                    #"workbench: \#(fixture.base.path)/res\ntouch \#(marker) #: the \#(what) holds a control character (\n), which a batch script cannot carry; choose a name without it"#
                ])
            XCTAssertEqual(outcome.standardOutput, "", "no script printed")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: jobs.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker))
    }

    func testSlurmScriptsQuoteShellSyntaxInEveryPathAndRunNoneOfIt() throws {
        let fixture = try fixture()
        let marker = fixture.base.appendingPathComponent("injected").path
        let odd = fixture.base.appendingPathComponent("it's $(touch \(marker)) `touch \(marker)`; touch \(marker) #")
        try FileManager.default.createDirectory(at: odd, withIntermediateDirectories: true)
        let movie = odd.appendingPathComponent("movie \"1\"")
        try FileManager.default.createDirectory(at: movie, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: try XCTUnwrap(TestMedia.pictures(fixture.dataset.appendingPathComponent("Testing Data/\(Self.overrideLabel)")).first),
            to: movie.appendingPathComponent("1.png"))
        let model = odd.appendingPathComponent("model $HOME.wbmodel")
        try FileManager.default.copyItem(at: fixture.model, to: model)
        // The log path stands in an #SBATCH line, where quotes and spaces are refused: a plain job folder.
        let jobs = fixture.base.appendingPathComponent("jobs").path
        let label = try run(
            [
                "slurm", "label", model.path, movie.path, "--tasks", "1", "--movie-data", odd.appendingPathComponent("Movie;Data.json").path,
                "--job-folder", jobs, "--dry-run",
            ], fixture)
        let features = try run(
            ["slurm", "features", fixture.dataset.path, "--tasks", "1", "--job-folder", jobs, "--dry-run"],
            fixture, environment: ["WORKBENCH_CACHE": odd.appendingPathComponent("cache").path])
        let binary = URL(fileURLWithPath: try WorkbenchBinary.path()).resolvingSymlinksInPath().path
        let stub = fixture.base.appendingPathComponent("stub").path
        try "#!/bin/sh\nexit 0\n".write(toFile: stub, atomically: true, encoding: .utf8)
        chmod(stub, 0o755)
        var scripts: [String] = []
        for outcome in [label, features] {
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            // The dry run prints each script after two comment lines; a script ends with its exec line.
            scripts += outcome.standardOutput.components(separatedBy: "#!/bin/bash\n").dropFirst().map { part in
                var lines = ["#!/bin/bash"]
                for line in part.split(separator: "\n", omittingEmptySubsequences: false) {
                    lines.append(String(line))
                    if line.hasPrefix("exec ") { break }
                }
                return (lines.joined(separator: "\n") + "\n").replacingOccurrences(of: "'\(binary)'", with: "'\(stub)'")
            }
        }
        XCTAssertEqual(scripts.count, 3, "array and merge scripts, and the cache fill")
        for script in scripts {
            XCTAssertNil(BatchScriptCheck.lineProblem(script), script)
            XCTAssertNil(try BatchScriptCheck.syntaxProblem(script, in: fixture.base), script)
            XCTAssertEqual(try BatchScriptCheck.run(script, in: fixture.base).status, 0, script)
            XCTAssertTrue(script.contains("exec '\(stub)'"), script)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "no injected command ran")
    }

    /// swift-argument-parser quotes a bad argument in its usage error; that line goes through the same escaping.
    func testUsageErrorsQuoteAnArgumentEscaped() throws {
        let badValue = try WorkbenchBinary.run(["classify", "m.wbmodel", "x.jpg", "--top", "\u{1B}]0;owned\u{07}x"])
        XCTAssertNotEqual(badValue.status, 0)
        XCTAssertNil(HostileNames.terminalProblem(badValue.standardError), badValue.standardError)
        XCTAssertTrue(badValue.standardError.contains(#"\u001B]0;owned\u0007x"#), badValue.standardError)
        let help = try WorkbenchBinary.run(["classify", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.standardOutput.contains("USAGE: workbench classify"), help.standardOutput)
        XCTAssertTrue(help.standardError.isEmpty, help.standardError)
    }
}
