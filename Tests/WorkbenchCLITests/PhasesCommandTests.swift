import Foundation
import XCTest
import _TestSupport

/// `workbench phases` through the release binary: a real run on a generated two-phase video with the tiny
/// cat/espresso model, its outputs (JSON, WebVTT, the page in Chromium), hand files checked with `--check`, and the
/// one-line errors (an order label the model lacks, a video too short for the phases, a folder, an output that is
/// the input).
final class PhasesCommandTests: XCTestCase {
    nonisolated(unsafe) private static var made: Result<(workspace: TinyDatasetWorkspace, model: String, video: String), Error>?

    /// One model and one 8-second video (4 s of a cat, then 4 s of espresso, 25 fps) for every test.
    private func fixture() throws -> (workspace: TinyDatasetWorkspace, model: String, video: String) {
        if Self.made == nil {
            Self.made = Result {
                let workspace = try TinyDatasetWorkspace()
                let model = workspace.folder.appendingPathComponent("tiny.wbmodel").path
                try TestMedia.check(try workspace.run(["train", workspace.dataset.path, "-o", model, "--no-html"]), "training the tiny model")
                let cats = try TestMedia.pictures(workspace.dataset.appendingPathComponent("Training Data/cat"))
                let coffees = try TestMedia.pictures(workspace.dataset.appendingPathComponent("Training Data/espresso"))
                let video = workspace.folder.appendingPathComponent("two phases.mp4")
                try TestMedia.video(pictures: [cats[0], coffees[0]], seconds: 4, to: video, environment: ProcessInfo.processInfo.environment)
                return (workspace, model, video.path)
            }
        }
        return try XCTUnwrap(Self.made).get()
    }

    override class func tearDown() {
        if case .success(let made) = made { made.workspace.remove() }
        super.tearDown()
    }

    private func path(_ name: String) throws -> String { try fixture().workspace.folder.appendingPathComponent(name).path }

    private func assertOneLineError(
        _ outcome: WorkbenchBinary.Outcome, naming subject: String, _ words: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(outcome.status, 1, outcome.standardError, file: file, line: line)
        XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError, file: file, line: line)
        XCTAssertTrue(outcome.standardError.hasPrefix("workbench: \(subject): "), outcome.standardError, file: file, line: line)
        XCTAssertTrue(outcome.standardError.contains(words), "\(outcome.standardError) lacks \(words)", file: file, line: line)
    }

    func testHelpTeachesByExample() throws {
        let outcome = try WorkbenchBinary.run(["phases", "--help"])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertTrue(outcome.standardOutput.contains("Examples:\n  workbench phases movie.mp4 --model"), outcome.standardOutput)
        XCTAssertTrue(outcome.standardOutput.contains("address,backswing,impact,finish"))
    }

    func testFindsTheChangeAndWritesJSONSubtitlesAndAPageChromiumAccepts() throws {
        let (workspace, model, video) = try fixture()
        let json = try path("phases.json"), vtt = try path("phases.vtt"), html = try path("phases.html")
        let outcome = try workspace.run(["phases", video, "--model", model, "--order", "cat,espresso", "-o", json, "--vtt", vtt, "--html", html])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        // Every frame of the 25 fps video: 200 frames, phases of at least 3 (0.1 s).
        XCTAssertTrue(outcome.standardError.contains("200 frames classified (one every 0.04 s, phases of at least 3 frames)"), outcome.standardError)
        let lines = outcome.standardOutput.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        XCTAssertEqual(lines.map(\.first), ["cat", "espresso"])
        XCTAssertEqual(lines.first?[1], "0.000")
        let change = try XCTUnwrap(Double(lines[1][1]))
        XCTAssertEqual(change, 4, accuracy: 0.2, "the espresso phase starts where the video changes picture")

        let written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        XCTAssertEqual(written["video"] as? String, video)
        XCTAssertEqual(written["order"] as? [String], ["cat", "espresso"])
        let phases = try XCTUnwrap(written["phases"] as? [[String: Any]])
        XCTAssertEqual(phases.map { $0["label"] as? String }, ["cat", "espresso"])
        XCTAssertEqual(phases[1]["start"] as? Double, change)
        XCTAssertEqual(phases[0]["end"] as? Double, change)
        XCTAssertEqual(phases[1]["end"] as? Double ?? 0, 8, accuracy: 0.05, "the last phase ends with the video")
        XCTAssertGreaterThan(phases[0]["confidence"] as? Double ?? 0, 0.5)
        // --json prints the same document.
        let printed = try workspace.run(["phases", video, "--model", model, "--order", "cat,espresso", "--json", "--every", "0.2"])
        XCTAssertEqual(printed.status, 0, printed.standardError)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(printed.standardOutput.utf8)) as? [String: Any])

        let cues = try WebVTTFile.parse(String(contentsOfFile: vtt, encoding: .utf8))
        XCTAssertEqual(cues.map(\.start), [0, change])
        let check = try PageCheck.run(page: html, screenshot: "phases-command.png")
        XCTAssertEqual(check.consoleErrors, [])
        XCTAssertEqual(check.outsideRequests(page: html), [])
        XCTAssertTrue(check.text.contains("espresso") && check.text.contains("Phases over time"), check.text)
        XCTAssertGreaterThan(check.distinctColors ?? 0, 500, "pictures of the frames at the phase starts")

        // The file written is one `--check` accepts, against the same video.
        let checked = try workspace.run(["phases", video, "--check", json])
        XCTAssertEqual(checked.status, 0, checked.standardError)
        XCTAssertEqual(checked.standardOutput, outcome.standardOutput)
    }

    func testBadHandFilesAreOneLineNamingTheFile() throws {
        let (workspace, _, video) = try fixture()
        let order = #""order": ["address", "backswing", "impact", "finish"]"#
        func phase(_ label: String, _ start: Double, _ end: Double) -> String { #"{"label": "\#(label)", "start": \#(start), "end": \#(end)}"# }
        let cases: [(String, String, String)] = [
            ("not JSON", "{\"video\": ", "not valid JSON"),
            (
                "out of order",
                "{\"video\": \"v.mp4\", \(order), \"phases\": [\(phase("address", 0, 1)), \(phase("impact", 1, 2)), \(phase("backswing", 2, 3)), \(phase("finish", 3, 4))]}",
                "phases out of order"
            ),
            (
                "missing",
                "{\"video\": \"v.mp4\", \(order), \"phases\": [\(phase("address", 0, 1)), \(phase("backswing", 1, 2)), \(phase("finish", 3, 4))]}",
                "phase \"impact\" is missing"
            ),
            (
                "overlap",
                "{\"video\": \"v.mp4\", \(order), \"phases\": [\(phase("address", 0, 1)), \(phase("backswing", 0.5, 2)), \(phase("impact", 2, 3)), \(phase("finish", 3, 4))]}",
                "before phase \"address\" ends"
            ),
            (
                "negative",
                "{\"video\": \"v.mp4\", \(order), \"phases\": [\(phase("address", -1, 1)), \(phase("backswing", 1, 2)), \(phase("impact", 2, 3)), \(phase("finish", 3, 4))]}",
                "negative"
            ),
            (
                "empty",
                "{\"video\": \"v.mp4\", \(order), \"phases\": [\(phase("address", 0, 1)), \(phase("backswing", 2, 2)), \(phase("impact", 2, 3)), \(phase("finish", 3, 4))]}",
                "does not end after it"
            ),
            (
                "too long",
                "{\"video\": \"v.mp4\", \(order), \"phases\": [\(phase("address", 0, 1)), \(phase("backswing", 1, 2)), \(phase("impact", 2, 3)), \(phase("finish", 3, 9.5))]}",
                "after the end of the video"
            ),
        ]
        for (name, text, words) in cases {
            let file = try path("\(name).json")
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            assertOneLineError(try workspace.run(["phases", video, "--check", file]), naming: file, words)
        }
        let good = try path("good.json")
        try
            "{\"video\": \"v.mp4\", \(order), \"phases\": [\(phase("address", 0, 1)), \(phase("backswing", 1, 2)), \(phase("impact", 2, 3)), \(phase("finish", 3, 8))]}"
            .write(toFile: good, atomically: true, encoding: .utf8)
        let outcome = try workspace.run(["phases", video, "--check", good])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(
            outcome.standardOutput, "address\t0.000\t1.000\t-\nbackswing\t1.000\t2.000\t-\nimpact\t2.000\t3.000\t-\nfinish\t3.000\t8.000\t-\n")
    }

    func testRefusalsAreOneLineBeforeAnyWork() throws {
        let (workspace, model, video) = try fixture()
        assertOneLineError(
            try workspace.run(["phases", video, "--model", model, "--order", "cat,dog"]), naming: model,
            "the order's label \"dog\" is not one of the model's labels (\"cat\", \"espresso\")")
        // 8 s cannot hold two phases of 5 s.
        assertOneLineError(
            try workspace.run(["phases", video, "--model", model, "--order", "cat,espresso", "--min-length", "5"]), naming: video,
            "too short for 2 phases of at least 5 s each")
        assertOneLineError(
            try workspace.run(["phases", workspace.dataset.path, "--model", model, "--order", "cat,espresso"]),
            naming: workspace.dataset.path, "is a folder")
        assertOneLineError(
            try workspace.run(["phases", video, "--model", model, "--order", "cat,espresso", "-o", video]), naming: video, "must not replace an input"
        )
        // Issue 45, item 9: an output in a folder that does not exist is refused before any frame is decoded, once
        // (it was "cannot write: cannot write: ..." after the whole run).
        for option in ["-o", "--vtt", "--html"] {
            let missing = workspace.folder.appendingPathComponent("no such folder/out").path
            let started = Date()
            let outcome = try workspace.run(["phases", video, "--model", model, "--order", "cat,espresso", option, missing])
            assertOneLineError(outcome, naming: missing, "cannot write here: folder")
            XCTAssertFalse(outcome.standardError.contains("cannot write: cannot write"), outcome.standardError)
            XCTAssertFalse(outcome.standardError.contains("frames classified"), "no frame was classified: \(outcome.standardError)")
            XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        }
        let usage = try workspace.run(["phases", video, "--model", model])
        XCTAssertEqual(usage.status, 64, usage.standardError)
        let mixed = try workspace.run(["phases", video, "--check", "x.json", "--model", model])
        XCTAssertEqual(mixed.status, 64, mixed.standardError)
    }
}
