import Foundation
import XCTest
import _TestSupport

/// The pages, subtitles and review copies people look at, made by the release binary and opened in headless
/// Chromium: `train` (default page beside the model), `evaluate --html`, `label --html --vtt --annotate`.
final class ReviewPagesTests: XCTestCase {
    nonisolated(unsafe) static var folder: URL!
    nonisolated(unsafe) static var dataset: URL!
    nonisolated(unsafe) static var model: String!
    nonisolated(unsafe) static var trainOutcome: WorkbenchBinary.Outcome!
    nonisolated(unsafe) static var report: [String: Any]!
    static let environment = ["SOURCE_DATE_EPOCH": "1700000000"]

    /// The tiny cat/espresso dataset with two planted problems: an espresso picture filed as a cat in testing (a
    /// sure mistake for the gallery) and a training cat copied into testing (a duplicate pair for the warnings).
    override class func setUp() {
        super.setUp()
        do {
            folder = try WorkbenchBinary.temporaryFolder()
            dataset = folder.appendingPathComponent("tiny")
            let root = WorkbenchBinary.repositoryRoot()
            try run(
                ProjectPython.path,
                [
                    root.appendingPathComponent("scripts/fixtures/make-tiny-dataset.py").path,
                    root.appendingPathComponent("Tests/ModelsTests/Fixtures").path, dataset.path,
                ])
            let files = FileManager.default
            let espresso = try files.contentsOfDirectory(atPath: dataset.appendingPathComponent("Testing Data/espresso").path).sorted()[0]
            try files.copyItem(
                at: dataset.appendingPathComponent("Testing Data/espresso/\(espresso)"),
                to: dataset.appendingPathComponent("Testing Data/cat/swapped <espresso> & co.\(URL(fileURLWithPath: espresso).pathExtension)"))
            let cat = try files.contentsOfDirectory(atPath: dataset.appendingPathComponent("Training Data/cat").path).sorted()[0]
            try files.copyItem(
                at: dataset.appendingPathComponent("Training Data/cat/\(cat)"),
                to: dataset.appendingPathComponent("Testing Data/cat/leaked-\(cat)"))
            model = folder.appendingPathComponent("Tiny.wbmodel").path
            let reportPath = folder.appendingPathComponent("report.json").path
            trainOutcome = try WorkbenchBinary.run(
                ["train", dataset.path, "-o", model, "--report", reportPath, "--no-cache"],
                environment: environment)
            precondition(trainOutcome.status == 0, trainOutcome.standardError)
            report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        } catch {
            fatalError("ReviewPagesTests set-up failed: \(error)")
        }
    }

    override class func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "\(arguments) failed")
        return data
    }

    private var folder: URL { Self.folder }
    private var model: String { Self.model }

    /// The testing files the report lists as misclassified.
    private func misclassified(_ evaluation: [String: Any]?) -> [String] {
        (evaluation?["misclassified"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    }

    /// The checks every page must pass: loads without a console error, asks for nothing outside itself, shows
    /// something, and names every label and every misclassified file.
    private func assertSound(
        _ check: PageCheck, page: String, mistakes: [String], allowedFiles: [String] = [],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(check.consoleErrors, [], file: file, line: line)
        XCTAssertEqual(check.outsideRequests(page: page, allowedFiles: allowedFiles), [], file: file, line: line)
        XCTAssertGreaterThan(check.distinctColors ?? 0, 1000, "the screenshot is not blank", file: file, line: line)
        for label in ["cat", "espresso"] { XCTAssertTrue(check.text.contains(label), label, file: file, line: line) }
        for mistake in mistakes {
            XCTAssertTrue(check.dataPaths.contains(mistake) || check.text.contains(mistake), "names \(mistake)", file: file, line: line)
        }
    }

    func testTrainWritesItsPageBesideTheModelAndItRendersClean() throws {
        let page = folder.appendingPathComponent("Tiny.html").path
        let lines = Self.trainOutcome.standardOutput.split(separator: "\n")
        XCTAssertEqual(lines.suffix(2), ["report written to \(page)", "model written to \(model)"][...])
        let testing = Self.report["testingEvaluation"] as? [String: Any]
        let mistakes = misclassified(testing)
        XCTAssertTrue(mistakes.contains { $0.contains("swapped <espresso> & co") }, "the planted mistake: \(mistakes)")
        let check = try PageCheck.run(page: page, screenshot: "train-tiny.png")
        assertSound(check, page: page, mistakes: mistakes)
        XCTAssertTrue(check.text.contains("identical file"), "the leak is a warning")
        // What the training report knows is drawn: intervals, how the strength was chosen, the calibration.
        let testingSummary = try XCTUnwrap(Self.report["testing"] as? [String: Any])
        let interval = try XCTUnwrap(testingSummary["interval"] as? [String: Double])
        XCTAssertTrue(check.text.contains("95 % interval"))
        // Issue 44, item 8: the text and the page print the same numbers for one interval (each end to the nearest
        // tenth of a percent; the text used to round outward, "78–100 %" for 21 of 22).
        let shown = String(format: "%.1f–%.1f %%", interval["lower"]! * 100, interval["upper"]! * 100)
        XCTAssertTrue(check.text.contains(shown), "the testing interval \(interval) on the page")
        let testingRow = try XCTUnwrap(Self.trainOutcome.standardOutput.split(separator: "\n").first { $0.hasPrefix("testing ") })
        XCTAssertTrue(testingRow.contains(shown), "the testing interval \(interval) in the text: \(testingRow)")
        let selection = try XCTUnwrap(Self.report["selection"] as? [String: Any])
        if (selection["grid"] as? [Any])?.count ?? 0 > 1 {
            XCTAssertTrue(check.text.contains("Held-out accuracy against L2 strength"))
            // Issue 44, item 8: the caption says why a strength less accurate than the best can be chosen.
            XCTAssertTrue(
                check.text.contains(
                    "(half a standard error of it, and at least one image) count as tied with it, and among them "
                        + "the one with the lowest held-out log-loss is chosen"), "the L2 caption names the rule")
        }
        let calibration = try XCTUnwrap(Self.report["calibration"] as? [String: Any])
        let temperature = try XCTUnwrap(calibration["temperature"] as? Double)
        XCTAssertTrue(
            check.text.contains(
                "temperature of \(String(format: "%.3f", temperature).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression))"),
            "the reliability diagram names the temperature")
        XCTAssertTrue(check.text.contains("Accuracy and share answered against the threshold"))
        XCTAssertTrue(check.dataPaths.contains { $0.contains("leaked-") }, "shown as a pair of thumbnails: \(check.dataPaths)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertEqual(html.components(separatedBy: "<img class=\"overlay\"").count - 1, mistakes.count, "a heat map on every mistake")
    }

    func testEvaluatePage() throws {
        let page = folder.appendingPathComponent("evaluation.html").path
        let outcome = try WorkbenchBinary.run(
            [
                "evaluate", model, Self.dataset.appendingPathComponent("Testing Data").path,
                "--html", page, "--json",
            ], environment: Self.environment)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertTrue(outcome.standardError.contains("report written to \(page)"))
        let evaluation = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        let mistakes = misclassified(evaluation)
        XCTAssertFalse(mistakes.isEmpty)
        let check = try PageCheck.run(page: page, screenshot: "evaluate-tiny.png")
        assertSound(check, page: page, mistakes: mistakes)
        // Issue 44, item 8: "the evaluated images images" no more.
        XCTAssertFalse(check.text.contains("images images"), "a doubled noun on the page")
        XCTAssertTrue(check.text.contains("The evaluated images of each label that the model is surest of"), "the examples' sentence")

        // A device given as the page is written through, never replaced.
        let toDevice = try WorkbenchBinary.run(
            [
                "evaluate", model, Self.dataset.appendingPathComponent("Testing Data").path,
                "--html", "/dev/null",
            ], environment: Self.environment)
        XCTAssertEqual(toDevice.status, 0, toDevice.standardError)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType, .typeCharacterSpecial)
    }

    /// Issue 44, item 8: `evaluate DATASET` scores the dataset's testing split and says so, naming the folder (text
    /// and JSON); a folder given itself is named as given.
    func testEvaluateSaysWhichFolderItScored() throws {
        let testing = Self.dataset.appendingPathComponent("Testing Data").path
        let whole = try WorkbenchBinary.run(["evaluate", model, Self.dataset.path], environment: Self.environment)
        XCTAssertEqual(whole.status, 0, whole.standardError)
        XCTAssertEqual(whole.standardOutput.components(separatedBy: "\n").first, "scored \(testing) (the dataset's testing split)")
        let json = try WorkbenchBinary.run(["evaluate", model, Self.dataset.path, "--json"], environment: Self.environment)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(object["folder"] as? String, testing)
        let given = try WorkbenchBinary.run(["evaluate", model, testing], environment: Self.environment)
        XCTAssertEqual(given.standardOutput.components(separatedBy: "\n").first, "scored \(testing)")
    }

    /// Issue 44, item 8: training onto an existing model file says it replaced it.
    func testTrainSaysWhenItReplacesAModelFile() throws {
        let again = folder.appendingPathComponent("again")
        try FileManager.default.createDirectory(at: again, withIntermediateDirectories: true)
        let path = again.appendingPathComponent("Again.wbmodel").path
        let first = try WorkbenchBinary.run(["train", Self.dataset.path, "-o", path, "--no-html"], environment: Self.environment)
        XCTAssertEqual(first.status, 0, first.standardError)
        XCTAssertEqual(first.standardOutput.split(separator: "\n").last, "model written to \(path)")
        let second = try WorkbenchBinary.run(["train", Self.dataset.path, "-o", path, "--no-html"], environment: Self.environment)
        XCTAssertEqual(second.status, 0, second.standardError)
        XCTAssertEqual(second.standardOutput.split(separator: "\n").last, "model written to \(path) (it replaced the model file that was there)")
    }

    func testNoHtmlAndAnUnwritablePage() throws {
        let quiet = folder.appendingPathComponent("quiet")
        try FileManager.default.createDirectory(at: quiet, withIntermediateDirectories: true)
        let quietModel = quiet.appendingPathComponent("Quiet.wbmodel").path
        let outcome = try WorkbenchBinary.run(["train", Self.dataset.path, "-o", quietModel, "--no-html"], environment: Self.environment)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: quiet.path), ["Quiet.wbmodel"])

        let missing = folder.appendingPathComponent("no such folder/page.html").path
        let refused = try WorkbenchBinary.run(
            [
                "train", Self.dataset.path, "-o", quiet.appendingPathComponent("Never.wbmodel").path,
                "--html", missing,
            ], environment: Self.environment)
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(
            refused.errorLines,
            [
                "workbench: \(missing): cannot write here: folder \(folder.appendingPathComponent("no such folder").path) does not exist or is not writable"
            ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: quiet.appendingPathComponent("Never.wbmodel").path), "refused before any work")
        let both = try WorkbenchBinary.run(["train", Self.dataset.path, "--html", "a.html", "--no-html"])
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.standardError.contains("--html and --no-html exclude each other"), both.standardError)
    }

    /// Four cat pictures then four espresso pictures, `secondsEach` seconds each (20 s + 20 s at the default 5),
    /// 640 × 360 H.264 like a movie (as LabelCommandTests makes it).
    private func makeMovie(_ name: String, secondsEach: Int = 5) throws -> String {
        var list = ""
        for label in ["cat", "espresso"] {
            let pictures = try FileManager.default.contentsOfDirectory(atPath: Self.dataset.appendingPathComponent("Training Data/\(label)").path)
                .filter { $0.hasSuffix(".png") }.sorted().prefix(4)
            for picture in pictures {
                list += "file '\(Self.dataset.appendingPathComponent("Training Data/\(label)/\(picture)").path)'\nduration \(secondsEach)\n"
            }
        }
        let listPath = folder.appendingPathComponent("\(name).txt").path
        try list.write(toFile: listPath, atomically: true, encoding: .utf8)
        let movie = folder.appendingPathComponent(name).path
        try Self.run(
            "/usr/bin/env",
            [
                "ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", listPath, "-vf",
                "scale=640:360:force_original_aspect_ratio=decrease,pad=640:360:(ow-iw)/2:(oh-ih)/2,format=yuv420p",
                "-r", "25", "-t", "\(8 * secondsEach)", "-c:v", "libx264", "-movflags", "+faststart", movie,
            ])
        return movie
    }

    private func duration(_ movie: String) throws -> Double {
        let text = String(
            decoding: try Self.run("/usr/bin/env", ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", movie]),
            as: UTF8.self)
        return try XCTUnwrap(Double(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// One frame at `second` as RGB bytes (640 × 360).
    private func frame(_ movie: String, at second: Double) throws -> [UInt8] {
        Array(
            try Self.run(
                "/usr/bin/env",
                [
                    "ffmpeg", "-nostdin", "-loglevel", "error", "-ss", String(second), "-i", movie,
                    "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
                ]))
    }

    /// Mean absolute difference of two 640 × 360 frames inside a rectangle.
    private func difference(_ a: [UInt8], _ b: [UInt8], x: Range<Int>, y: Range<Int>) -> Double {
        var total = 0.0
        for row in y {
            for column in x {
                for channel in 0..<3 {
                    let index = (row * 640 + column) * 3 + channel
                    total += abs(Double(a[index]) - Double(b[index]))
                }
            }
        }
        return total / Double(x.count * y.count * 3)
    }

    func testLabelPagePlaysTheMovieAndSubtitlesAndReviewCopyCoverIt() throws {
        let movie = try makeMovie("movie.mp4")
        let outputs = folder.appendingPathComponent("review")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        let page = outputs.appendingPathComponent("labels.html").path
        let subtitles = outputs.appendingPathComponent("movie.vtt").path
        let annotated = outputs.appendingPathComponent("movie-labelled.mp4").path
        let outcome = try WorkbenchBinary.run([
            "label", model, movie, "--html", page, "--vtt", subtitles, "--annotate", annotated,
            "--summary", "--changes-only",
        ])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        for line in [
            "the page plays \(movie) itself", "report written to \(page)", "subtitles written to \(subtitles)",
            "review copy written to \(annotated)",
        ] {
            XCTAssertTrue(outcome.errorLines.contains(line), "\(line) in \(outcome.standardError)")
        }
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains("src=\"../movie.mp4\""), "the movie is referenced relative to the page, not copied")

        // The player as a viewer meets it: seek, then read what it shows beside the movie.
        func seek(_ second: Double) -> String {
            """
            new Promise(done => { const video = document.querySelector("video");
              video.addEventListener("seeked", () => setTimeout(() => done([document.getElementById("now-0").textContent,
                document.getElementById("next-0").textContent, document.getElementById("next-0").className]), 100), { once: true });
              video.currentTime = \(second); })
            """
        }
        let subtitleText = try String(contentsOfFile: subtitles, encoding: .utf8)
        let change = try XCTUnwrap(WebVTTFile.parse(subtitleText).dropFirst().first?.start)
        let check = try PageCheck.run(
            page: page, screenshot: "label-movie.png", videos: true,
            evaluate: [seek(change - 12), seek(change - 4), seek(change + 1)])
        assertSound(check, page: page, mistakes: [], allowedFiles: [movie])
        let clock = "0:\(Int(change))"
        // Labels between Unicode isolates (FSI … PDI), so a right-to-left name cannot reorder the time beside it.
        let (cat, espresso) = ("\u{2068}cat\u{2069}", "\u{2068}espresso\u{2069}")
        XCTAssertEqual(
            check.evaluations,
            [
                .strings([cat, "next: \(espresso) at \(clock)", "next"]),
                .strings([cat, "next: \(espresso) at \(clock) (in 4 s)", "next soon"]),
                .strings([espresso, "no further change", "next"]),
            ],
            "the next label is announced 5 s ahead, as the player does")
        XCTAssertEqual(check.videoStates?.count, 1)
        XCTAssertGreaterThanOrEqual(check.videoStates?.first ?? 0, 2, "the <video> has data to play")
        XCTAssertTrue(check.text.contains("mean confidence"), "--summary's table is on the page")

        let length = try duration(movie)
        let cues = try WebVTTFile.parse(String(contentsOfFile: subtitles, encoding: .utf8))
        XCTAssertEqual(cues.first?.start, 0)
        XCTAssertEqual(cues.last?.end ?? 0, length, accuracy: 0.0015, "the last cue ends with the movie")
        for (cue, next) in zip(cues, cues.dropFirst()) { XCTAssertEqual(cue.end, next.start, "no gap between stretches") }
        XCTAssertEqual(cues.map { $0.text.split(separator: " ").first.map(String.init) ?? "" }, [cat, espresso])
        XCTAssertEqual(cues[1].start, 20, accuracy: 2, "the label changes with the pictures")

        XCTAssertEqual(try duration(annotated), length, accuracy: 0.1)
        let original = try frame(movie, at: 5.5), labelled = try frame(annotated, at: 5.5)
        XCTAssertEqual(labelled.count, 640 * 360 * 3)
        // The caption box sits at the top left (font 20 px, 20 px in); the rest of the picture is the movie's.
        XCTAssertGreaterThan(difference(original, labelled, x: 20..<120, y: 20..<45), 30, "a caption is burned in")
        XCTAssertLessThan(difference(original, labelled, x: 320..<640, y: 200..<360), 4, "the picture is otherwise the movie")
    }

    func testSeveralMoviesWriteOneFilePerMovieIntoAFolder() throws {
        // Short movies: only the files written per movie are checked here.
        let first = try makeMovie("first.mp4", secondsEach: 1), second = try makeMovie("second.mp4", secondsEach: 1)
        let refused = try WorkbenchBinary.run(["label", model, first, second, "--vtt", folder.appendingPathComponent("both.vtt").path])
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.standardError.contains("--vtt takes an existing folder when labelling several movies"), refused.standardError)
        let subtitles = folder.appendingPathComponent("subtitles")
        try FileManager.default.createDirectory(at: subtitles, withIntermediateDirectories: true)
        let outcome = try WorkbenchBinary.run(["label", model, first, second, "--vtt", subtitles.path])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: subtitles.path).sorted(), ["first.vtt", "second.vtt"])
        for name in ["first.vtt", "second.vtt"] {
            XCTAssertFalse(try WebVTTFile.parse(String(contentsOf: subtitles.appendingPathComponent(name), encoding: .utf8)).isEmpty)
        }
        let frames = folder.appendingPathComponent("frames-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures")
        for number in 1...3 {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent("chelsea.jpg"), to: frames.appendingPathComponent("\(number).jpg"))
        }
        let folderMovie = try WorkbenchBinary.run(["label", model, frames.path, "--annotate", folder.appendingPathComponent("x.mp4").path])
        XCTAssertEqual(folderMovie.status, 1)
        XCTAssertEqual(folderMovie.errorLines.last, "workbench: \(frames.path): a burned-in review copy needs a video file, not a folder of frames")
    }

    // MARK: Issue 44, defect 1: the page always plays

    /// `movie` re-encoded as MPEG-4 Part 2 (Microsoft's msmpeg4v3) in AVI, as old cameras and OpenCV write it: a
    /// file no browser plays.
    private func makeAVI(_ name: String, from movie: String) throws -> String {
        let avi = folder.appendingPathComponent(name).path
        try Self.run("/usr/bin/env", ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", movie, "-c:v", "msmpeg4", "-q:v", "4", avi])
        return avi
    }

    /// Opens `page` in Chromium and checks that its one `<video>` plays `file`: data to play (readyState ≥ 2), no
    /// media error, no console error, no request but the page and `file`.
    private func assertPagePlays(_ page: String, file: String, screenshot: String, line: UInt = #line) throws {
        let state = """
            (() => { const video = document.querySelector("video");
              return [String(video.readyState), video.error ? "media error " + video.error.code : "no media error",
                decodeURIComponent(video.currentSrc.split("/").pop())]; })()
            """
        let check = try PageCheck.run(page: page, screenshot: screenshot, videos: true, evaluate: [state])
        XCTAssertEqual(check.consoleErrors, [], line: line)
        XCTAssertEqual(check.outsideRequests(page: page, allowedFiles: [file]), [], line: line)
        XCTAssertEqual(check.videoStates?.count, 1, line: line)
        XCTAssertGreaterThanOrEqual(check.videoStates?.first ?? 0, 2, "the <video> has data to play", line: line)
        guard case .strings(let values) = check.evaluations.first, values.count == 3 else {
            return XCTFail("no video state: \(check.evaluations)", line: line)
        }
        XCTAssertEqual(values[1], "no media error", line: line)
        XCTAssertEqual(values[2], URL(fileURLWithPath: file).lastPathComponent, line: line)
    }

    /// `label --html` on an AVI: the page plays a preview made beside it and named after it, the terminal says so,
    /// and `--json` has it in a page line.
    func testLabelPageOnAnAVIPlaysAPreviewMadeForIt() throws {
        let avi = try makeAVI("old camera.avi", from: try makeMovie("for-avi.mp4", secondsEach: 2))
        let outputs = folder.appendingPathComponent("avi-review")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        let page = outputs.appendingPathComponent("labels.html").path
        let preview = outputs.appendingPathComponent("labels-old camera.mp4").path
        let outcome = try WorkbenchBinary.run(["label", model, avi, "--html", page, "--json"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertTrue(
            outcome.errorLines.contains(
                "the page plays a preview made for it, \(preview): a browser cannot be relied on to play \(avi) itself (msmpeg4v3 video in a .avi file)"
            ), outcome.standardError)
        let pageLine = try XCTUnwrap(outcome.standardOutput.split(separator: "\n").last.map(String.init))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(pageLine.utf8)) as? [String: [String: Any]])
        XCTAssertEqual(object["page"]?["file"] as? String, page)
        let videos = try XCTUnwrap(object["page"]?["videos"] as? [[String: String]])
        XCTAssertEqual(
            videos, [["video": avi, "plays": "preview", "file": preview, "problem": "msmpeg4v3 video in a .avi file"]])
        try assertPagePlays(page, file: preview, screenshot: "label-avi.png")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outputs.path).sorted(), ["labels-old camera.mp4", "labels.html"])
    }

    /// `detect --html` on an AVI: a preview as for label; with `--annotate` the page plays the annotated copy and no
    /// preview is made; on an MP4 the page plays the video itself.
    func testDetectPageOnAnAVIPlaysAPreviewOrTheAnnotatedCopy() throws {
        let movie = try makeMovie("detect-source.mp4", secondsEach: 1)
        let avi = try makeAVI("detect.avi", from: movie)
        let outputs = folder.appendingPathComponent("detect-review")
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        let page = outputs.appendingPathComponent("people.html").path, preview = outputs.appendingPathComponent("people-detect.mp4").path
        let outcome = try WorkbenchBinary.run(["detect", avi, "--every", "1", "--html", page, "--json"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertTrue(
            outcome.errorLines.contains(
                "the page plays a preview made for it, \(preview): a browser cannot be relied on to play \(avi) itself (msmpeg4v3 video in a .avi file)"
            ), outcome.standardError)
        XCTAssertTrue(outcome.errorLines.contains("written: \(preview)"), outcome.standardError)
        let line = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(Set(line.keys), ["video", "samples", "clips", "page"])
        XCTAssertEqual(
            line["page"] as? [String: String], ["video": avi, "plays": "preview", "file": preview, "problem": "msmpeg4v3 video in a .avi file"])
        try assertPagePlays(page, file: preview, screenshot: "detect-avi.png")

        let annotated = outputs.appendingPathComponent("boxes.mp4").path, second = outputs.appendingPathComponent("second.html").path
        let withCopy = try WorkbenchBinary.run(["detect", avi, "--every", "1", "--html", second, "--annotate", annotated])
        XCTAssertEqual(withCopy.status, 0, withCopy.standardError)
        XCTAssertTrue(
            withCopy.errorLines.contains(
                "the page plays the annotated copy \(annotated): a browser cannot be relied on to play \(avi) itself (msmpeg4v3 video in a .avi file)"
            ), withCopy.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: outputs.appendingPathComponent("second-detect.mp4").path), "no preview")
        try assertPagePlays(second, file: annotated, screenshot: "detect-avi-annotated.png")

        let itself = try WorkbenchBinary.run(["detect", movie, "--every", "1", "--html", outputs.appendingPathComponent("mp4.html").path])
        XCTAssertEqual(itself.status, 0, itself.standardError)
        XCTAssertTrue(itself.errorLines.contains("the page plays \(movie) itself"), itself.standardError)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: outputs.path).sorted(),
            ["boxes.mp4", "mp4.html", "people-detect.mp4", "people.html", "second.html"])
    }
}
