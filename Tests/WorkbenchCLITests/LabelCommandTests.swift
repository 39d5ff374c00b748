import Foundation
import XCTest
import _TestSupport

/// `workbench label` through the release binary: a generated video and frame folder, MovieData.json, bad inputs.
final class LabelCommandTests: XCTestCase {
    nonisolated(unsafe) static var folder: URL!
    nonisolated(unsafe) static var model: String!
    nonisolated(unsafe) static var video: String!
    var folder: URL { Self.folder }
    var model: String { Self.model }
    var video: String { Self.video }

    /// One model (cat vs espresso) and one 40-second video (20 s of cats, then 20 s of espresso) for all tests.
    override class func setUp() {
        super.setUp()
        do {
            folder = try WorkbenchBinary.temporaryFolder()
            let root = WorkbenchBinary.repositoryRoot()
            let dataset = folder.appendingPathComponent("tiny")
            try run(
                ProjectPython.path,
                [
                    root.appendingPathComponent("scripts/fixtures/make-tiny-dataset.py").path,
                    root.appendingPathComponent("Tests/ModelsTests/Fixtures").path, dataset.path,
                ])
            model = folder.appendingPathComponent("tiny.wbmodel").path
            let train = try WorkbenchBinary.run(["train", dataset.path, "-o", model, "--no-cache"])
            precondition(train.status == 0, train.standardError)
            // Each picture held 5 s, letterboxed into 640 × 360 like a movie.
            var list = ""
            for label in ["cat", "espresso"] {
                // PNGs only: ffmpeg's concat demuxer wants one codec throughout.
                let pictures = try FileManager.default.contentsOfDirectory(atPath: dataset.appendingPathComponent("Training Data/\(label)").path)
                    .filter { $0.hasSuffix(".png") }.sorted().prefix(4)
                for picture in pictures {
                    list += "file '\(dataset.appendingPathComponent("Training Data/\(label)/\(picture)").path)'\nduration 5\n"
                }
            }
            let listPath = folder.appendingPathComponent("list.txt").path
            try list.write(toFile: listPath, atomically: true, encoding: .utf8)
            video = folder.appendingPathComponent("movie.mp4").path
            try run(
                "/usr/bin/env",
                [
                    "ffmpeg", "-nostdin", "-loglevel", "error", "-f", "concat", "-safe", "0", "-i", listPath, "-vf",
                    "scale=640:360:force_original_aspect_ratio=decrease,pad=640:360:(ow-iw)/2:(oh-ih)/2,format=yuv420p",
                    "-r", "25", "-t", "40", video,
                ])
        } catch {
            fatalError("LabelCommandTests set-up failed: \(error)")
        }
    }

    override class func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "\(arguments) failed")
        return process.terminationStatus
    }

    func testVideoLabelChangeLandsInMovieDataBesideAnUntouchedMovie() throws {
        let movieData = folder.appendingPathComponent("MovieData.json").path
        let existing = """
            [{"id": 1, "title": "Keep me", "description": "d", "poster": "p.jpg", "markers": {"5": "Scary"}, "rating": 4.5, "tags": ["a", {"b": null}]},
             {"id": 2, "title": "Old title", "markers": {"1": "cat"}, "director": "someone"}]
            """
        try existing.write(toFile: movieData, atomically: true, encoding: .utf8)
        let outcome = try WorkbenchBinary.run([
            "label", model, video, "--movie-data", movieData, "--id", "2",
            "--description", "cats, then coffee", "--json",
        ])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)

        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        let frames = try XCTUnwrap(result["frames"] as? [[String: Any]])
        XCTAssertEqual(frames.count, 40, "one frame a second")
        let labels = frames.map { $0["label"] as? String ?? "" }
        let change = try XCTUnwrap(labels.firstIndex(of: "espresso"), "\(labels)")
        XCTAssertLessThanOrEqual(abs(change - 20), 2, "label change at second \(change), truth 20: \(labels)")
        XCTAssertEqual(Set(labels[..<18]), ["cat"])
        XCTAssertEqual(Set(labels[22...]), ["espresso"])

        let written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: movieData))) as? [[String: Any]])
        let original = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(existing.utf8)) as? [[String: Any]])
        XCTAssertEqual(written.count, 2)
        XCTAssertEqual(NSDictionary(dictionary: written[0]), NSDictionary(dictionary: original[0]), "the other movie stays exactly as it was")
        XCTAssertEqual(written[1]["director"] as? String, "someone", "fields Workbench does not know are kept")
        XCTAssertEqual(written[1]["title"] as? String, "Old title", "a title not given is kept")
        XCTAssertEqual(written[1]["description"] as? String, "cats, then coffee")
        let markers = try XCTUnwrap(written[1]["markers"] as? [String: String])
        XCTAssertEqual(markers.count, 40, "a marker per second by default")
        XCTAssertEqual(markers["0"], "cat")
        XCTAssertEqual(markers["39"], "espresso")
    }

    func testFrameFolderInNumericOrderWithACorruptFrameSkipped() throws {
        let frames = folder.appendingPathComponent("frames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures")
        // 1…12 in numeric order: cats at 1–6, espresso at 7–12; 10.jpg sorts after 9.jpg, not after 1.jpg.
        for number in 1...12 {
            let source = number <= 6 ? "chelsea.jpg" : "coffee.jpg"
            try FileManager.default.copyItem(
                at: fixtures.appendingPathComponent(source),
                to: frames.appendingPathComponent("\(number).jpg"))
        }
        try FileManager.default.removeItem(at: frames.appendingPathComponent("4.jpg"))
        try Data("broken".utf8).write(to: frames.appendingPathComponent("4.jpg"))
        let outcome = try WorkbenchBinary.run(["label", model, frames.path, "--fps", "2", "--json"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        let labelled = try XCTUnwrap(result["frames"] as? [[String: Any]])
        XCTAssertEqual(labelled.map { $0["second"] as? Double ?? -1 }, [0, 0.5, 1, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5])
        XCTAssertEqual(labelled.map { $0["label"] as? String ?? "" }, Array(repeating: "cat", count: 5) + Array(repeating: "espresso", count: 6))
        XCTAssertEqual(result["skippedFrames"] as? Int, 1)
        // One key style (camelCase) throughout, as the training report uses.
        let summary = try XCTUnwrap(result["summary"] as? [String: Any])
        XCTAssertEqual(summary["topLabel"] as? String, "espresso")
        XCTAssertEqual(Set((try XCTUnwrap(summary["meanConfidence"] as? [String: Any])).keys), ["cat", "espresso"])
        let windows = try XCTUnwrap(summary["bestWindows"] as? [String: [String: Any]])
        XCTAssertFalse(windows.isEmpty)
        for window in windows.values { XCTAssertEqual(Set(window.keys), ["start", "end", "meanConfidence"]) }
        XCTAssertTrue(outcome.standardError.contains("4.jpg"), "the corrupt frame is named: \(outcome.standardError)")
    }

    func testMarkerPolicyFromTheCommandLine() throws {
        let outcome = try WorkbenchBinary.run([
            "label", model, video, "--changes-only", "--smooth", "3",
            "--min-confidence", "0.99999", "--fallback", "cat",
        ])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let lines = outcome.standardOutput.split(separator: "\n")
        XCTAssertLessThanOrEqual(lines.count, 3, "changes only: \(outcome.standardOutput)")
        XCTAssertTrue(lines.first?.contains("cat") ?? false)
    }

    func testSummaryAndHighlights() throws {
        let reel = folder.appendingPathComponent("reel.mp4").path
        let outcome = try WorkbenchBinary.run([
            "label", model, video, "--summary", "--window", "4", "--highlights", "espresso",
            "--count", "1", "-o", reel,
        ])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertTrue(outcome.standardOutput.contains("mean confidence"), outcome.standardOutput)
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", reel]
        let pipe = Pipe()
        probe.standardOutput = pipe
        try probe.run()
        let duration =
            Double(
                String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        probe.waitUntilExit()
        XCTAssertEqual(duration, 4, accuracy: 0.5, "one 4-second window")
    }

    /// Issue 44, item 7: the reel lists each clip (video, window, score) on stdout, as text and as JSON, and keeps
    /// the movies' size (the largest one's, never upscaled) unless --size says otherwise.
    func testHighlightsListTheClipsAndKeepTheMoviesSize() throws {
        let small = folder.appendingPathComponent("small.mp4").path
        try Self.run("/usr/bin/env", ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", video, "-vf", "scale=320:180", small])
        let reel = folder.appendingPathComponent("reel-\(UUID().uuidString).mp4").path
        let outcome = try WorkbenchBinary.run(["label", model, video, small, "--window", "4", "--highlights", "espresso", "--count", "2", "-o", reel])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertTrue(outcome.standardOutput.contains("\nhighlights of espresso in \(reel), 640 × 360, 2 clips:\n"), outcome.standardOutput)
        let rows = outcome.standardOutput.components(separatedBy: "\n").drop { !$0.hasPrefix("highlights of") }.dropFirst(2).filter { !$0.isEmpty }
        XCTAssertEqual(rows.count, 2, outcome.standardOutput)
        XCTAssertEqual(Set(rows.map { String($0.prefix { $0 != " " }) }), [video, small], outcome.standardOutput)
        for row in rows {
            XCTAssertNotNil(row.range(of: #"\d+\.\d–\d+\.\d s  0\.\d{3}$|\d+\.\d–\d+\.\d s  1\.000$"#, options: .regularExpression), row)
        }
        XCTAssertTrue(outcome.standardError.contains("2 clips of 'espresso' joined into \(reel) (640 × 360)\n"), outcome.standardError)
        XCTAssertEqual(try Self.size(of: reel), "640,360", "the larger movie's size, not 1280 × 720")

        let json = try WorkbenchBinary.run([
            "label", model, small, "--json", "--window", "4", "--highlights", "espresso", "--count", "1",
            "--size", "160x90", "-o", reel,
        ])
        XCTAssertEqual(json.status, 0, json.standardError)
        let last = try XCTUnwrap(json.standardOutput.split(separator: "\n").last)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let highlights = try XCTUnwrap(object["highlights"] as? [String: Any])
        XCTAssertEqual(highlights["label"] as? String, "espresso")
        XCTAssertEqual(highlights["output"] as? String, reel)
        XCTAssertEqual([highlights["width"] as? Int, highlights["height"] as? Int], [160, 90])
        let clips = try XCTUnwrap(highlights["clips"] as? [[String: Any]])
        XCTAssertEqual(clips.map { $0["video"] as? String }, [small])
        XCTAssertEqual(Set(clips[0].keys), ["video", "start", "end", "score"])
        XCTAssertEqual(try Self.size(of: reel), "160,90", "--size wins")

        for (size, status) in [("161x90", 64), ("8x8", 64), ("1280", 64), ("1280x720x2", 64)] {
            let refused = try WorkbenchBinary.run(["label", model, small, "--highlights", "espresso", "--size", size, "-o", reel])
            XCTAssertEqual(refused.status, Int32(status), size)
            XCTAssertTrue(
                refused.standardError.contains("--size must be WIDTHxHEIGHT with even sides from 16 to 8192, e.g. 1280x720, got \"\(size)\""),
                refused.standardError)
        }
        let alone = try WorkbenchBinary.run(["label", model, small, "--size", "320x180"])
        XCTAssertEqual(alone.status, 64)
        XCTAssertTrue(alone.standardError.contains("--size goes with --highlights"), alone.standardError)
    }

    /// Issue 44, item 8: a picture given to `label` is refused in one line that points to `classify`, as a PNG and
    /// as a JPEG.
    func testLabelOnAPictureSaysToUseClassify() throws {
        let png = folder.appendingPathComponent("still.png").path, jpeg = folder.appendingPathComponent("still.jpg").path
        for picture in [png, jpeg] {
            try Self.run(
                "/usr/bin/env",
                [
                    "ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=64x48",
                    "-frames:v", "1", picture,
                ])
            let outcome = try WorkbenchBinary.run(["label", model, picture])
            XCTAssertEqual(outcome.status, 1, outcome.standardError)
            XCTAssertEqual(
                outcome.errorLines.filter { $0.hasPrefix("workbench: ") },
                ["workbench: \(picture): is a picture, not a movie: label reads videos and folders of frames; workbench classify labels pictures"],
                outcome.standardError)
        }
    }

    /// "width,height" of a video's first stream, by ffprobe.
    static func size(of video: String) throws -> String {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", video]
        let pipe = Pipe()
        probe.standardOutput = pipe
        try probe.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testBadInputsFailWithOneLineAndDamageNothing() throws {
        let text = folder.appendingPathComponent("notes.mp4")
        try Data("this is not a video".utf8).write(to: text)
        let audio = folder.appendingPathComponent("sound.wav").path
        try Self.run("/usr/bin/env", ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=2", audio])
        let empty = folder.appendingPathComponent("empty-frames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let corruptData = folder.appendingPathComponent("Corrupt.json").path
        try "[{\"id\": 1, \"markers\": ".write(toFile: corruptData, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: corruptData))

        let cases: [([String], [String: String], String)] = [
            (["label", model, folder.appendingPathComponent("missing.mp4").path], [:], "missing.mp4"),
            (["label", model, text.path], [:], "notes.mp4"),
            (["label", model, audio], [:], "sound.wav"),
            (["label", model, empty.path], [:], empty.lastPathComponent),
            (["label", model, video], ["PATH": "/nonexistent"], "ffmpeg"),
            (["label", model, video, "--movie-data", corruptData, "--id", "1"], [:], "Corrupt.json"),
        ]
        for (arguments, environment, fragment) in cases {
            let outcome = try WorkbenchBinary.run(arguments, environment: environment)
            XCTAssertEqual(outcome.status, 1, "\(arguments): \(outcome.standardError)")
            let errors = outcome.errorLines.filter { $0.hasPrefix("workbench: ") }
            XCTAssertEqual(errors.count, 1, "\(arguments): \(outcome.standardError)")
            XCTAssertTrue(errors.first?.contains(fragment) ?? false, "\(errors) should mention \(fragment)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: corruptData)), before, "a corrupt MovieData.json is never overwritten")
    }
}
