import Foundation
import XCTest
import _TestSupport

/// `workbench label` on the odd inputs of issue 13, through the release binary: worker and frame counts that
/// crashed, absurd numbers, irregular video timing, frame folders with gaps or clashing numbers, concurrent and
/// symlinked MovieData files, and fallback markers.
final class LabelRobustnessTests: XCTestCase {
    nonisolated(unsafe) static var folder: URL!
    nonisolated(unsafe) static var model: String!
    nonisolated(unsafe) static var dataset: URL!
    var folder: URL { Self.folder }
    var model: String { Self.model }
    static let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures")

    /// One cat-vs-espresso model for every test.
    override class func setUp() {
        super.setUp()
        do {
            folder = try WorkbenchBinary.temporaryFolder()
            (dataset, model) = try TestMedia.tinyModel(in: folder)
        } catch {
            fatalError("LabelRobustnessTests set-up failed: \(error)")
        }
    }

    override class func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    /// Runs a tool (a path, or a name looked up on PATH) to completion; throws when it fails.
    static func tool(_ name: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [name] + arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad, userInfo: ["arguments": arguments]) }
    }

    /// A fresh frame folder: file name → fixture picture (chelsea.jpg is a cat, coffee.jpg espresso).
    private func frameFolder(_ files: [String: String]) throws -> String {
        let frames = folder.appendingPathComponent("frames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        for (name, fixture) in files {
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(fixture), to: frames.appendingPathComponent(name))
        }
        return frames.path
    }

    private func json(_ outcome: WorkbenchBinary.Outcome, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any],
            outcome.standardOutput + outcome.standardError, file: file, line: line)
    }

    private func seconds(_ result: [String: Any]) -> [Double] {
        (result["frames"] as? [[String: Any]] ?? []).map { $0["second"] as? Double ?? -1 }
    }

    /// A batch of frames split over more workers than it has frames crashed with "Range requires lowerBound <=
    /// upperBound" (a one-frame folder with --threads 3; a five-second video with --threads 4, which is the default
    /// on a four-core machine). Frame counts 1, 2, 3 and 5 over 3, 4 and 9 workers, and absurd worker counts.
    func testFrameCountsBelowTheWorkerCountDoNotCrash() throws {
        for frameCount in [1, 2, 3, 5] {
            let frames = try frameFolder(
                Dictionary(uniqueKeysWithValues: (1...frameCount).map { ("\($0).jpg", $0 % 2 == 0 ? "coffee.jpg" : "chelsea.jpg") }))
            for threads in [3, 4, 9] {
                let outcome = try WorkbenchBinary.run(["label", model, frames, "--threads", "\(threads)", "--json"])
                XCTAssertEqual(outcome.status, 0, "\(frameCount) frames, \(threads) threads: \(outcome.standardError)")
                XCTAssertEqual(seconds(try json(outcome)), (0..<frameCount).map(Double.init))
            }
        }
        let one = try frameFolder(["1.jpg": "chelsea.jpg"])
        let most = try WorkbenchBinary.run(["label", model, one, "--threads", "256"])
        XCTAssertEqual(most.status, 0, "--threads 256: \(most.standardError)")
        XCTAssertEqual(most.standardOutput.split(separator: "\n").count, 1)
        let video = folder.appendingPathComponent("five-seconds.mp4").path
        try Self.tool(
            "ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-y", "-loop", "1", "-i", Self.fixtures.appendingPathComponent("chelsea.jpg").path,
                "-t", "5", "-r", "25", "-vf", "scale=320:240,format=yuv420p", "-c:v", "libx264", video,
            ])
        for threads in [3, 4, 6] {
            let outcome = try WorkbenchBinary.run(["label", model, video, "--threads", "\(threads)", "--json"])
            XCTAssertEqual(outcome.status, 0, "five seconds, \(threads) threads: \(outcome.standardError)")
            XCTAssertEqual(seconds(try json(outcome)), [0, 1, 2, 3, 4])
        }
    }

    /// `--every 1e-300` overflowed; every numeric option is now checked, with its bounds in the message, before
    /// any work starts.
    func testAbsurdNumbersAreRefusedWithTheirBounds() throws {
        let frames = try frameFolder(["1.jpg": "chelsea.jpg"])
        let cases: [([String], String)] = [
            (["--every", "1e-300"], "--every must be between 0.001 and 86400 seconds (a millisecond to a day), got 1e-300"),
            (["--every", "0"], "--every must be between 0.001 and 86400 seconds"),
            (["--every=-1"], "--every must be between"),
            (["--every", "1e300"], "got 1e+300"),
            (["--every", "nan"], "got nan"),
            (["--every", "inf"], "got inf"),
            (["--fps", "1e-300"], "--fps must be between 1/86400 (a frame a day) and 1000, got 1e-300"),
            (["--fps", "1e9"], "--fps must be between"),
            (["--fps", "0"], "--fps must be between"),
            (["--min-confidence", "1.5"], "--min-confidence must be between 0 and 1, got 1.5"),
            (["--min-confidence", "nan"], "--min-confidence must be between 0 and 1"),
            (["--smooth", "0"], "--smooth must be between 1 and 86400 seconds (a day), got 0"),
            (["--smooth", "\(Int.max)"], "--smooth must be between 1 and 86400"),
            (["--window", "0"], "--window must be between 0.001 and 86400 seconds, got 0"),
            (["--window", "1e300"], "--window must be between"),
            (["--window", "nan"], "--window must be between"),
            (["--count", "0"], "--count must be at least 1, got 0"),
            (["--fallback", ""], "--fallback must not be empty"),
            (["--threads", "0"], "--threads must be between 1 and 256, got 0"),
            (["--threads", "\(Int.max)"], "--threads must be between 1 and 256, got \(Int.max)"),
            (["--max-megapixels", "\(Int.max)"], "--max-megapixels must be between 1 and 100000, got \(Int.max)"),
            (["--max-megapixels", "0"], "--max-megapixels must be between 1 and 100000"),
        ]
        for (options, message) in cases {
            let outcome = try WorkbenchBinary.run(["label", model, frames] + options)
            XCTAssertEqual(outcome.status, 64, "\(options): \(outcome.standardError)")
            XCTAssertTrue(outcome.errorLines.first?.contains(message) ?? false, "\(options): \(outcome.standardError)")
        }
        // Sampling a video faster than its own frames is refused, naming the video and its rate.
        let video = folder.appendingPathComponent("rate.mp4").path
        try Self.tool(
            "ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25:duration=2",
                "-c:v", "mpeg4", video,
            ])
        let outcome = try WorkbenchBinary.run(["label", model, video, "--every", "0.01"])
        XCTAssertEqual(outcome.status, 1, outcome.standardError)
        XCTAssertEqual(
            outcome.errorLines,
            [
                "workbench: \(video): sampling every 0.01 s is faster than the video's frame rate "
                    + "(25 fps, a frame every 0.04 s); sample every 0.04 s or more"
            ])
        XCTAssertEqual(try WorkbenchBinary.run(["label", model, video, "--every", "0.04"]).status, 0)
    }

    /// A slide show (one frame per picture, shown for irregular times, several decoders): each second's label is
    /// the picture on screen at that second. Segment joins used to lose the picture already showing there, so
    /// markers came early and sparse videos lost most of their samples.
    func testSlideShowWithIrregularTimingKeepsEverySecond() throws {
        let pictures = Self.dataset.appendingPathComponent("Training Data")
        func png(_ label: String, _ position: Int) throws -> String {
            let names = try FileManager.default.contentsOfDirectory(atPath: pictures.appendingPathComponent(label).path)
                .filter { $0.hasSuffix(".png") }.sorted()
            return pictures.appendingPathComponent("\(label)/\(names[position % names.count])").path
        }
        // (label, seconds on screen): multiples of 1/25 s, changes between whole seconds and on them, one
        // espresso shown for 0.84 s between two whole seconds (never sampled).
        let schedule: [(String, Double)] = [
            ("cat", 3.72), ("espresso", 2.28), ("cat", 5.16), ("espresso", 0.84), ("cat", 4.0),
            ("espresso", 6.48), ("cat", 1.52), ("espresso", 3.0), ("cat", 2.4),
        ]
        var list = "", start = 0.0, starts: [(Double, String)] = []
        for (position, (label, duration)) in schedule.enumerated() {
            list += "file '\(try png(label, position))'\nduration \(duration)\n"
            starts.append((start, label))
            start += duration
        }
        list += "file '\(try png(schedule.last!.0, schedule.count - 1))'\n"
        let listPath = folder.appendingPathComponent("slides.txt").path
        try list.write(toFile: listPath, atomically: true, encoding: .utf8)
        let video = folder.appendingPathComponent("slides.mp4").path
        try Self.tool(
            "ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", listPath, "-vf",
                "scale=640:360:force_original_aspect_ratio=decrease,pad=640:360:(ow-iw)/2:(oh-ih)/2,format=yuv420p",
                "-fps_mode", "vfr", "-c:v", "libx264", video,
            ])
        let truth = (0...Int(start)).map { second in starts.last { $0.0 <= Double(second) }!.1 }
        for threads in ["1", "2", "3"] {
            let outcome = try WorkbenchBinary.run(["label", model, video, "--threads", threads, "--json"])
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            let result = try json(outcome)
            XCTAssertEqual(seconds(result), truth.indices.map(Double.init), "--threads \(threads)")
            let labels = (result["frames"] as? [[String: Any]] ?? []).map { $0["label"] as? String ?? "" }
            XCTAssertEqual(labels, truth, "--threads \(threads)")
        }
    }

    /// The frame number is the time: `1.jpg`, `10.jpg` are seconds 0 and 9. Two files with one number are one
    /// line naming both, and nothing is labelled.
    func testFrameFolderGapsAndClashingNumbers() throws {
        let gaps = try frameFolder(["1.jpg": "chelsea.jpg", "10.jpg": "coffee.jpg"])
        let outcome = try WorkbenchBinary.run(["label", model, gaps, "--json"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let result = try json(outcome)
        XCTAssertEqual(seconds(result), [0, 9])
        XCTAssertEqual(Set((result["markers"] as? [String: String] ?? [:]).keys), ["0", "9"])

        let clash = try frameFolder(["1.jpg": "chelsea.jpg", "01.jpg": "coffee.jpg", "2.jpg": "chelsea.jpg"])
        let refused = try WorkbenchBinary.run(["label", model, clash])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.errorLines, ["workbench: \(clash): 01.jpg and 1.jpg both have frame number 1; keep one of them"])
        XCTAssertEqual(refused.standardOutput, "")
    }

    /// Over several movies, one that cannot be labelled is named and skipped, the others are labelled, and the
    /// exit status says something failed.
    func testOneStrangeMovieDoesNotStopTheOthers() throws {
        let first = try frameFolder(["1.jpg": "chelsea.jpg"])
        let clash = try frameFolder(["1.jpg": "chelsea.jpg", "001.png": "coffee.png"])
        let text = folder.appendingPathComponent("notes.mp4").path
        try "not a video".write(toFile: text, atomically: true, encoding: .utf8)
        let last = try frameFolder(["1.jpg": "coffee.jpg", "2.jpg": "coffee.jpg"])
        let outcome = try WorkbenchBinary.run(["label", model, first, clash, text, last])
        XCTAssertEqual(outcome.status, 1)
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 5, outcome.standardOutput)
        XCTAssertEqual(lines.first, first)
        XCTAssertTrue(lines[1].hasPrefix("     0  cat  "), lines[1])
        XCTAssertEqual(lines[2], last)
        XCTAssertTrue(lines[3].hasPrefix("     0  espresso  ") && lines[4].hasPrefix("     1  espresso  "), outcome.standardOutput)
        let errors = outcome.errorLines.filter { $0.hasPrefix("workbench: ") }
        XCTAssertEqual(errors.count, 3, outcome.standardError)
        XCTAssertEqual(errors.first, "workbench: \(clash): 001.png and 1.jpg both have frame number 1; keep one of them (movie skipped)")
        XCTAssertTrue(errors[1].hasPrefix("workbench: \(text): not a video file") && errors[1].hasSuffix("(movie skipped)"), errors[1])
        XCTAssertEqual(errors.last, "workbench: 2 of 4 movies could not be labelled: \(clash), \(text)")
        XCTAssertTrue(outcome.standardError.contains("3 frames from 2 movies"), outcome.standardError)
    }

    /// Eight `label --movie-data` runs at once on one file, five rounds: every movie is kept.
    /// (`scripts/check/stress-movie-data.sh` runs the issue's fifty rounds.) Without a lock two runs read the same
    /// old file and each wrote back only its own movie.
    func testConcurrentMovieDataRunsKeepEveryMovie() throws {
        let frames = try frameFolder(["1.jpg": "chelsea.jpg", "2.jpg": "coffee.jpg"])
        let movieData = folder.appendingPathComponent("Concurrent.json").path
        try "[]".write(toFile: movieData, atomically: true, encoding: .utf8)
        let binary = try WorkbenchBinary.path()
        let rounds = 5, writers = 8
        for round in 0..<rounds {
            let processes = try (0..<writers).map { writer -> Process in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: binary)
                process.arguments = ["label", model, frames, "--threads", "1", "--movie-data", movieData, "--id", "r\(round)w\(writer)"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                return process
            }
            for process in processes {
                process.waitUntilExit()
                XCTAssertEqual(process.terminationStatus, 0)
            }
        }
        let movies = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: movieData))) as? [[String: Any]])
        let ids = Set(movies.compactMap { $0["id"] as? String })
        let expected = Set((0..<rounds).flatMap { round in (0..<writers).map { "r\(round)w\($0)" } })
        XCTAssertEqual(ids, expected, "lost: \(expected.subtracting(ids).sorted())")
        XCTAssertEqual(movies.count, rounds * writers)
    }

    /// A symlinked MovieData.json stays a link to the updated file, which keeps its mode and (as root) its owner.
    func testSymlinkedMovieDataKeepsItsLinkModeAndOwner() throws {
        let frames = try frameFolder(["1.jpg": "chelsea.jpg"])
        let shared = folder.appendingPathComponent("shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let target = shared.appendingPathComponent("Movies.json").path
        try #"[{"id": "other", "markers": {"0": "x"}}]"#.write(toFile: target, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(target, 0o640), 0)
        let owner: uid_t = getuid() == 0 ? 65534 : getuid(), group: gid_t = getuid() == 0 ? 65534 : getgid()
        XCTAssertEqual(chown(target, owner, group), 0)
        let link = folder.appendingPathComponent("Linked-\(UUID().uuidString).json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)

        let outcome = try WorkbenchBinary.run(["label", model, frames, "--movie-data", link, "--id", "new"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), target, "still a link to the same file")
        let movies = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: target))) as? [[String: Any]])
        XCTAssertEqual(movies.compactMap { $0["id"] as? String }, ["other", "new"])
        var status = stat()
        XCTAssertEqual(stat(target, &status), 0)
        XCTAssertEqual(status.st_mode & 0o7777, 0o640)
        XCTAssertEqual(status.st_uid, owner)
        XCTAssertEqual(status.st_gid, group)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: shared.path).filter { $0.contains(".tmp-") }, [],
            "no temporary file left")
    }

    /// A fallback marker shows the confidence that put it there, with the verdict and the threshold; the fallback
    /// may be any name, a model label too; the default is documented.
    func testFallbackShowsTheConfidenceThatPutItThere() throws {
        let help = try WorkbenchBinary.run(["label", "--help"])
        let helpText = help.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(
            helpText.contains("--fallback <label> The label of frames below --min-confidence (default: Unsure); any name, a model label too."),
            help.standardOutput)

        let frames = try frameFolder(["1.jpg": "chelsea.jpg", "2.jpg": "coffee.jpg"])
        let plain = try json(try WorkbenchBinary.run(["label", model, frames, "--json"]))
        let confidences = (plain["frames"] as? [[String: Any]] ?? []).map { ($0["confidence"] as? Double) ?? 0 }
        let verdicts = (plain["frames"] as? [[String: Any]] ?? []).map { $0["label"] as? String ?? "" }
        XCTAssertEqual(verdicts, ["cat", "espresso"])
        XCTAssertNotEqual(confidences[0], confidences[1], "the test needs two different confidences")
        let threshold = (confidences[0] + confidences[1]) / 2
        let low = confidences[0] < confidences[1] ? 0 : 1

        for fallback in ["Neutral", "cat"] {
            let outcome = try WorkbenchBinary.run(["label", model, frames, "--min-confidence", "\(threshold)", "--fallback", fallback, "--json"])
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            let result = try json(outcome)
            let labelled = try XCTUnwrap(result["frames"] as? [[String: Any]])
            XCTAssertEqual(labelled[low]["label"] as? String, fallback)
            XCTAssertEqual(labelled[low]["verdict"] as? String, verdicts[low])
            XCTAssertEqual(labelled[low]["confidence"] as? Double ?? 0, confidences[low], accuracy: 1e-6)
            XCTAssertEqual(labelled[low]["threshold"] as? Double ?? 0, threshold, accuracy: 1e-6)
            XCTAssertEqual(labelled[1 - low]["label"] as? String, verdicts[1 - low])
            XCTAssertNil(labelled[1 - low]["verdict"], "a kept verdict needs no explanation")
            XCTAssertEqual((result["markers"] as? [String: String])?[String(low)], fallback)
        }

        let text = try WorkbenchBinary.run(["label", model, frames, "--min-confidence", "\(threshold)"])
        XCTAssertEqual(text.status, 0, text.standardError)
        let lines = text.standardOutput.split(separator: "\n").map(String.init)
        let shown = String(format: "%g", threshold)
        XCTAssertTrue(lines[low].hasPrefix(String(format: "%6d  Unsure  ", low)), lines[low])
        XCTAssertTrue(lines[low].hasSuffix("(\(verdicts[low]), below \(shown))"), lines[low])
        let printed = lines[low].split(separator: " ").dropFirst(2).first.flatMap { Double($0) } ?? 1
        XCTAssertLessThan(printed, Double(shown) ?? 0, "the printed confidence is visibly below the printed threshold: \(lines[low])")
        XCTAssertEqual(lines[1 - low], String(format: "%6d  %@  %.2f", 1 - low, verdicts[1 - low], confidences[1 - low]))
    }
}
