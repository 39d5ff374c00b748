import Foundation
import XCTest
import _TestSupport

/// `workbench sync` and `workbench trace` through the release binary: end to end on small generated videos, and
/// every refusal as one line `workbench: path: reason` with exit status 1 (or a usage line and 64), nothing written.
final class SyncTraceCommandTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws { folder = try WorkbenchBinary.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// `seconds` of ffmpeg's test pattern at `rate`, 160 × 120, with a tone when `audio`.
    private func video(_ name: String, seconds: Double = 2, rate: Int = 25, audio: Bool = false) throws -> String {
        var arguments = ["-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=\(rate):d=\(seconds)"]
        if audio { arguments += ["-f", "lavfi", "-i", "sine=duration=\(seconds)", "-c:a", "aac"] }
        arguments += ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", path(name)]
        let outcome = try WorkbenchBinary.runProcess("/usr/bin/env", ["ffmpeg"] + arguments, environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        return path(name)
    }

    private func phases(_ name: String, _ text: String) throws -> String {
        try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    private func timeline(
        _ bounds: [(String, Double, Double)], order: String = #"["address", "swing", "finish"]"#,
        video: String = "v.mp4"
    ) -> String {
        let phases = bounds.map { #"{"label": "\#($0.0)", "start": \#($0.1), "end": \#($0.2)}"# }.joined(separator: ", ")
        return #"{"video": "\#(video)", "order": \#(order), "phases": [\#(phases)]}"#
    }

    /// Issue 44, item 6: each phase file names its video; given in the other order, the first that names another
    /// input is refused in one line naming it, the video it names and the one it was given for, nothing written;
    /// --ignore-phase-video uses them as given, with a warning each.
    func testSyncRefusesPhaseFilesThatNameAnotherInput() throws {
        let a = try video("a.mp4"), b = try video("b.mp4")
        let aPhases = try phases("a.json", timeline([("address", 0, 0.5), ("swing", 0.5, 1), ("finish", 1, 1.5)], video: "a.mp4"))
        let bPhases = try phases("b.json", timeline([("address", 0.2, 0.6), ("swing", 0.6, 1.2), ("finish", 1.2, 1.8)], video: b))
        let swapped = try WorkbenchBinary.run(["sync", a, b, "--phases", bPhases, aPhases, "-o", path("out.mp4")])
        XCTAssertEqual(swapped.status, 1)
        XCTAssertEqual(
            swapped.standardError,
            "workbench: \(bPhases): names the video \"\(b)\", which is video 2 (\(b)), not video 1 (\(a)) "
                + "it was given for: give the phase files in the order of their videos\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.mp4")))
        let right = try WorkbenchBinary.run(["sync", a, b, "--phases", aPhases, bPhases, "-o", path("right.mp4")])
        XCTAssertEqual(right.status, 0, right.standardError)
        XCTAssertEqual(right.standardError.components(separatedBy: "warning").count, 1, right.standardError)
        let forced = try WorkbenchBinary.run(["sync", a, b, "--phases", bPhases, aPhases, "--ignore-phase-video", "-o", path("forced.mp4")])
        XCTAssertEqual(forced.status, 0, forced.standardError)
        XCTAssertTrue(
            forced.standardError.contains(
                "warning: \(bPhases) names the video \"\(b)\", which is video 2 (\(b)); its phases are used "
                    + "for video 1 (\(a)) as --ignore-phase-video asks\n"), forced.standardError)
        XCTAssertTrue(
            forced.standardError.contains(
                "warning: \(aPhases) names the video \"a.mp4\", which is video 1 (\(a)); its phases are used "
                    + "for video 2 (\(b)) as --ignore-phase-video asks\n"), forced.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("forced.mp4")))
    }

    func testSyncWritesTheVideoAndPrintsThePlan() throws {
        let a = try video("a.mp4", audio: true), b = try video("b.mp4", seconds: 3)
        let aPhases = try phases("a.json", timeline([("address", 0.2, 0.8), ("swing", 0.8, 1.6), ("finish", 1.6, 2.0)]))
        let bPhases = try phases("b.json", timeline([("address", 0.4, 0.8), ("swing", 0.8, 2.0), ("finish", 2.0, 2.4)]))
        let outcome = try WorkbenchBinary.run(["sync", a, b, "--phases", aPhases, bPhases, "--audio", "1", "--json", "-o", path("side.mp4")])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let plan = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(plan["frames"] as? Int, 55)
        XCTAssertEqual((plan["phases"] as? [[String: Any]])?.map { $0["frames"] as? Int }, [15, 30, 10])
        let probe = try WorkbenchBinary.runProcess(
            "/usr/bin/env",
            [
                "ffprobe", "-v", "error", "-count_frames", "-show_entries",
                "stream=codec_type,nb_read_frames,height,width", "-of", "csv=p=0", path("side.mp4"),
            ],
            environment: ProcessInfo.processInfo.environment)
        XCTAssertTrue(probe.standardOutput.contains("video,320,120,55"), probe.standardOutput)
        XCTAssertTrue(probe.standardOutput.contains("audio"), probe.standardOutput)
        let text = try WorkbenchBinary.run(["sync", a, b, "--phases", aPhases, bPhases, "--stack", "vertical", "-o", path("s.mkv")])
        XCTAssertEqual(text.status, 0, text.standardError)
        XCTAssertTrue(text.standardOutput.hasPrefix("\(path("s.mkv")): 3 phases, 2.20 s (55 frames at 25 fps)"), text.standardOutput)
        XCTAssertTrue(text.standardOutput.contains("  address  0.60 s: \(b) holds 0.20 s\n"), text.standardOutput)
    }

    func testSyncRefusesBadPhaseFilesAndInputsWithOneLine() throws {
        let a = try video("a.mp4"), b = try video("b.mp4")
        let good = try phases("good.json", timeline([("address", 0, 0.5), ("swing", 0.5, 1), ("finish", 1, 1.5)]))
        let cases: [(String, String, String)] = [
            ("order.json", timeline([("address", 0, 0.5), ("finish", 0.5, 1), ("swing", 1, 1.5)]), "phases out of order"),
            ("missing.json", timeline([("address", 0, 0.5), ("swing", 0.5, 1)]), "phase \"finish\" is missing"),
            ("long.json", timeline([("address", 0, 0.5), ("swing", 0.5, 1), ("finish", 1, 3.5)]), "after the end of the video"),
            ("other.json", timeline([("address", 0, 0.5), ("finish", 0.5, 1)], order: #"["address", "finish"]"#), "differs from"),
        ]
        for (name, text, words) in cases {
            let file = try phases(name, text)
            let outcome = try WorkbenchBinary.run(["sync", a, b, "--phases", good, file, "-o", path("out.mp4")])
            XCTAssertEqual(outcome.status, 1, name)
            XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError)
            XCTAssertTrue(outcome.standardError.hasPrefix("workbench: \(file): "), outcome.standardError)
            XCTAssertTrue(outcome.standardError.contains(words), outcome.standardError)
        }
        let sound = path("sound.m4a")
        _ = try WorkbenchBinary.runProcess(
            "/usr/bin/env", ["ffmpeg", "-nostdin", "-loglevel", "error", "-f", "lavfi", "-i", "sine=duration=1", sound],
            environment: ProcessInfo.processInfo.environment)
        let noVideo = try WorkbenchBinary.run(["sync", a, sound, "--phases", good, good, "-o", path("out.mp4")])
        XCTAssertEqual(noVideo.standardError, "workbench: \(sound): no video stream (it has only audio)\n")
        let over = try WorkbenchBinary.run(["sync", a, b, "--phases", good, good, "-o", b])
        XCTAssertEqual(over.status, 1)
        XCTAssertEqual(over.standardError, "workbench: \(b): is the same file as the input \(b): an output must not replace an input\n")
        let silent = try WorkbenchBinary.run(["sync", a, b, "--phases", good, good, "--audio", "2", "-o", path("out.mp4")])
        XCTAssertEqual(silent.standardError, "workbench: \(b): has no sound to take (--audio)\n")
        let count = try WorkbenchBinary.run(["sync", a, b, "--phases", good, "-o", path("out.mp4")])
        XCTAssertEqual(count.status, 64)
        XCTAssertTrue(count.standardError.contains("--phases needs one file per video: 2 videos, 1 phase files"), count.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.mp4")))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }, [])
    }

    /// A hostile phase name (quotes, colons, a line feed, a drawtext expansion, a bidi override) is drawn, not obeyed.
    func testSyncDrawsAnyPhaseName() throws {
        let a = try video("a.mp4"), b = try video("b.mp4")
        let name = #"it's: %{pts} \" \n\u202E[x];,drawbox"#
        let file = try phases(
            "odd.json",
            #"{"video": "v.mp4", "order": ["\#(name)", "b"], "phases": [{"label": "\#(name)", "start": 0, "end": 1}, {"label": "b", "start": 1, "end": 2}]}"#
        )
        let outcome = try WorkbenchBinary.run(["sync", a, b, "--phases", file, file, "-o", path("odd.mp4")])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertFalse(outcome.standardOutput.contains("\u{202E}"), "the terminal line escapes the override")
    }

    /// Issue 45, defect 7: a phase name's line feed and tab stay inside its field in the summary and in a one-line
    /// error, and a usage error quoting an argument with a tab or line feed is still its four lines.
    func testAPhaseNamesLineFeedAndTabAreEscapedInTheSummaryAndTheErrors() throws {
        let a = try video("a.mp4"), b = try video("b.mp4")
        let name = #"one\ttwo\nthree"#
        func file(_ named: String, end: Double) throws -> String {
            try phases(
                named,
                #"{"video": "v.mp4", "order": ["\#(name)", "b"], "phases": [{"label": "\#(name)", "start": 0, "end": 1}, {"label": "b", "start": 1, "end": \#(end)}]}"#
            )
        }
        let good = try file("good.json", end: 2), late = try file("late.json", end: 9)
        let outcome = try WorkbenchBinary.run(["sync", a, b, "--phases", good, good, "-o", path("odd.mp4")])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let lines = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.count, 4, "the summary, a line per phase, the final line feed: \(lines)")
        XCTAssertTrue(lines[1].hasPrefix(#"  one\ttwo\nthree  "#), lines[1])
        XCTAssertFalse(outcome.standardOutput.contains("\t"), "no raw tab")

        let refused = try WorkbenchBinary.run(["sync", a, b, "--phases", good, late, "-o", path("late.mp4")])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.errorLines.count, 1, refused.standardError)
        XCTAssertFalse(refused.standardError.contains("\t"), refused.standardError)

        for (stack, shown) in [("x\ty", #"x\ty"#), ("x\ny", #"x\ny"#)] {
            let usage = try WorkbenchBinary.run(["sync", a, b, "--phases", good, good, "--stack", stack, "-o", path("s.mp4")])
            XCTAssertEqual(usage.status, 64)
            XCTAssertEqual(usage.errorLines.count, 4, "Error, Help, Usage and See: \(usage.standardError)")
            XCTAssertTrue(usage.errorLines.first?.contains(shown) ?? false, usage.standardError)
            XCTAssertFalse(usage.standardError.contains("\t"), usage.standardError)
        }
    }

    /// `sync --model --order`: the phases found by the tiny cat/espresso model in each video (as `phases` finds
    /// them), then played in step: two videos of a cat then espresso, 2 s + 2 s and 1 s + 1 s, make 4 s.
    func testSyncFindsThePhasesWithAModel() throws {
        let workspace = try TinyDatasetWorkspace()
        defer { workspace.remove() }
        let model = workspace.folder.appendingPathComponent("tiny.wbmodel").path
        try TestMedia.check(try workspace.run(["train", workspace.dataset.path, "-o", model, "--no-html"]), "training the tiny model")
        let cats = try TestMedia.pictures(workspace.dataset.appendingPathComponent("Training Data/cat"))
        let coffees = try TestMedia.pictures(workspace.dataset.appendingPathComponent("Training Data/espresso"))
        let slow = workspace.folder.appendingPathComponent("slow.mp4"), quick = workspace.folder.appendingPathComponent("quick.mp4")
        try TestMedia.video(pictures: [cats[0], coffees[0]], seconds: 2, to: slow, environment: ProcessInfo.processInfo.environment)
        try TestMedia.video(pictures: [cats[1], coffees[1]], seconds: 1, to: quick, environment: ProcessInfo.processInfo.environment)
        let output = workspace.folder.appendingPathComponent("side.mp4").path
        let outcome = try workspace.run(["sync", slow.path, quick.path, "--model", model, "--order", "cat,espresso", "--json", "-o", output])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let plan = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        let phases = try XCTUnwrap(plan["phases"] as? [[String: Any]])
        XCTAssertEqual(phases.map { $0["label"] as? String }, ["cat", "espresso"])
        XCTAssertEqual(Double(try XCTUnwrap(plan["frames"] as? Int)), 100, accuracy: 2, "the slow video's 2 s + 2 s at 25 fps")
        let quickHolds = phases.map { (($0["inputs"] as? [[String: Any]])?[1]["holdFrames"] as? Int) ?? -1 }
        XCTAssertEqual(Double(quickHolds[0]), 25, accuracy: 2)
        let both = try workspace.run([
            "sync", slow.path, quick.path, "--model", model, "--order", "cat,espresso", "--phases", "a.json", "b.json", "-o", output,
        ])
        XCTAssertEqual(both.status, 64)
        let unknown = try workspace.run([
            "sync", slow.path, quick.path, "--model", model, "--order", "cat,tea", "-o", workspace.folder.appendingPathComponent("x.mp4").path,
        ])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.standardError.hasPrefix("workbench: \(model): "), unknown.standardError)
    }

    func testTraceWritesTheVideoAndPrintsTheCurve() throws {
        let a = try video("a.mp4", audio: true)
        let outcome = try WorkbenchBinary.run([
            "trace", a, "--from", "0.4", "--duration", "0.8", "--points", "20,100 80,20 140,100",
            "--color", "#FF0000", "--width", "6", "--json", "-o", path("t.mp4"),
        ])  // 6 pixels: 4:2:0 chroma blurs a thinner line
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        let frames = try XCTUnwrap(json["frames"] as? [[String: Any]])
        XCTAssertEqual(frames.first?["frame"] as? Int, 10)
        XCTAssertEqual(frames.last?["frame"] as? Int, 30)
        XCTAssertEqual(frames.last?["progress"] as? Double, 1)
        XCTAssertEqual((json["control"] as? [String: Double])?["y"], -60)
        // The colour read back at the three points on the last frame (ffmpeg decodes it to a picture).
        let picture = path("last.rgb")
        let decode = try WorkbenchBinary.runProcess(
            "/usr/bin/env",
            [
                "ffmpeg", "-nostdin", "-loglevel", "error", "-sseof", "-0.2", "-i", path("t.mp4"),
                "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", picture,
            ],
            environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(decode.status, 0, decode.standardError)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: picture)))
        for (x, y) in [(20, 99), (80, 20), (139, 99), (50, 40)] {  // B(1/4) = (50, 40)
            let index = (y * 160 + x) * 3
            XCTAssertGreaterThan(bytes[index], 180, "red at \(x),\(y)")
            XCTAssertLessThan(bytes[index + 1], 100, "red at \(x),\(y)")
        }
    }

    func testTraceRefusesPointsOutsideTheFrameAStartPastTheEndAndAnOutputOverTheInput() throws {
        let a = try video("a.mp4")
        let outside = try WorkbenchBinary.run(["trace", a, "--from", "0", "--points", "20,100 80,-5 140,100", "-o", path("t.mp4")])
        XCTAssertEqual(outside.status, 1)
        XCTAssertEqual(
            outside.standardError, "workbench: \(a): the second point (80,-5) is outside the 160x120 frame (x from 0 to 160, y from 0 to 120)\n")
        let late = try WorkbenchBinary.run(["trace", a, "--from", "2", "--points", "20,100 80,20 140,100", "-o", path("t.mp4")])
        XCTAssertEqual(late.standardError, "workbench: \(a): the curve would start at 2 s, at or after the end of the video (2 s)\n")
        let over = try WorkbenchBinary.run(["trace", a, "--from", "0", "--points", "20,100 80,20 140,100", "-o", a])
        XCTAssertEqual(over.standardError, "workbench: \(a): is the same file as the input \(a): an output must not replace an input\n")
        for (arguments, words) in [
            (["--points", "20,100 80,20"], "--points must be three points"), (["--points", "1,2 3,4 5,6", "--color", "mauve"], "--color must be"),
            (["--points", "1,2 3,4 5,6", "--duration", "0"], "--duration must be"),
        ] {
            let outcome = try WorkbenchBinary.run(["trace", a, "--from", "0", "-o", path("t.mp4")] + arguments)
            XCTAssertEqual(outcome.status, 64)
            XCTAssertTrue(outcome.standardError.contains(words), outcome.standardError)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("t.mp4")))
    }
}
