import Foundation
import XCTest
import _TestSupport

/// `workbench detect` through the release binary with set-up's person detector: a picture's lines and Create ML
/// JSON, a video's JSON line with its clip written, the bad inputs of issue 24 (no video stream, a zero-length
/// video, a 1 × 1 picture, a 20,000-pixel-wide panorama, missing and unreadable files, outputs over inputs) and
/// hostile names on the terminal; and every golden picture of the in-process tests, against TensorFlow's boxes.
final class DetectCommandTests: XCTestCase {
    private var folder: URL!

    /// A frame of OpenCV's vtest.avi (pedestrians) from the detector's golden pictures.
    private static let crowd = WorkbenchBinary.repositoryRoot()
        .appendingPathComponent("Tests/DetectionTests/Fixtures/detector-images/vtest-020s.jpg").path

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func ffmpeg(_ arguments: [String]) throws {
        let outcome = try WorkbenchBinary.runProcess(
            "/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-y"] + arguments,
            environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
    }

    /// One line on stderr naming `file`, exit status 1, nothing on stdout.
    private func assertOneLine(
        _ outcome: WorkbenchBinary.Outcome, naming file: String, containing reason: String,
        line: UInt = #line
    ) {
        XCTAssertEqual(outcome.status, 1, outcome.standardError, line: line)
        XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError, line: line)
        XCTAssertTrue(outcome.standardError.hasPrefix("workbench: \(file)"), outcome.standardError, line: line)
        XCTAssertTrue(outcome.standardError.contains(reason), outcome.standardError, line: line)
        XCTAssertEqual(outcome.standardOutput, "", line: line)
    }

    func testAPictureGivesLinesAndCreateMLJSON() throws {
        let text = try WorkbenchBinary.run(["detect", Self.crowd])
        XCTAssertEqual(text.status, 0, text.standardError)
        let lines = text.standardOutput.split(separator: "\n")
        XCTAssertGreaterThanOrEqual(lines.count, 3, "several people in the frame: \(text.standardOutput)")
        for line in lines {
            let fields = line.split(separator: "\t")
            XCTAssertEqual(fields.count, 7)
            XCTAssertEqual(fields[0], Substring(Self.crowd))
            XCTAssertEqual(fields[1], "person")
            XCTAssertGreaterThanOrEqual(Double(fields[2]) ?? 0, 0.5)
        }
        let json = try WorkbenchBinary.run(["detect", Self.crowd, "--json", "--min-score", "0.7"])
        XCTAssertEqual(json.status, 0, json.standardError)
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        XCTAssertEqual(array.count, 1)
        XCTAssertEqual(array[0]["image"] as? String, Self.crowd)
        let annotations = try XCTUnwrap(array[0]["annotations"] as? [[String: Any]])
        XCTAssertFalse(annotations.isEmpty)
        for annotation in annotations {
            XCTAssertEqual(annotation["label"] as? String, "person")
            XCTAssertGreaterThanOrEqual(annotation["confidence"] as? Double ?? 0, 0.7)
            let box = try XCTUnwrap(annotation["coordinates"] as? [String: Double])
            XCTAssertEqual(Set(box.keys), ["x", "y", "width", "height"])
            // Inside the 768 × 576 frame, centre-based.
            XCTAssertTrue(box["x"]! - box["width"]! / 2 >= -1 && box["x"]! + box["width"]! / 2 <= 769, "\(box)")
        }
        let unknown = try WorkbenchBinary.run(["detect", Self.crowd, "--label", "dog"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertEqual(unknown.errorLines, ["workbench: unknown label 'dog': the detector knows 'person'"])
    }

    /// Every golden picture through the release binary, read back from `detect --json` (centre, width and height
    /// in pixels) and held to the same rule as the in-process golden test, whose debug build takes a subset.
    func testEveryGoldenPictureMatchesTheReferenceThroughTheBinary() throws {
        struct Goldens: Decodable {
            struct Picture: Decodable {
                struct Box: Decodable { let score: Float; let left, top, right, bottom: Double }
                let name: String
                let file: String
                let detections: [Box]
            }
            let reportScore: Float
            let pictures: [Picture]
        }
        let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/DetectionTests/Fixtures")
        let goldens = try JSONDecoder().decode(Goldens.self, from: Data(contentsOf: fixtures.appendingPathComponent("detector-goldens.json")))
        XCTAssertGreaterThanOrEqual(goldens.pictures.count, 30)
        let paths = goldens.pictures.map { fixtures.appendingPathComponent($0.file).path }
        let run = try WorkbenchBinary.run(["detect"] + paths + ["--json", "--min-score", "\(goldens.reportScore)"])
        XCTAssertEqual(run.status, 0, run.standardError)
        let results = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]])
        XCTAssertEqual(results.map { $0["image"] as? String }, paths)
        var withPeople = 0
        for (picture, result) in zip(goldens.pictures, results) {
            let annotations = try XCTUnwrap(result["annotations"] as? [[String: Any]], picture.name)
            let found = try annotations.map { annotation -> DetectionComparison.Scored in
                let box = try XCTUnwrap(annotation["coordinates"] as? [String: Double], picture.name)
                let (x, y, width, height) = (box["x"] ?? .nan, box["y"] ?? .nan, box["width"] ?? .nan, box["height"] ?? .nan)
                return .init(
                    score: Float(try XCTUnwrap(annotation["confidence"] as? Double, picture.name)),
                    box: .init(left: x - width / 2, top: y - height / 2, right: x + width / 2, bottom: y + height / 2))
            }
            let reference = picture.detections.map {
                DetectionComparison.Scored(score: $0.score, box: .init(left: $0.left, top: $0.top, right: $0.right, bottom: $0.bottom))
            }
            let problems = DetectionComparison.unmatched(workbench: found, reference: reference)
            XCTAssertTrue(problems.isEmpty, "\(picture.name): \(problems)")
            if reference.contains(where: { $0.score >= DetectionComparison.reportedScore }) { withPeople += 1 }
        }
        XCTAssertGreaterThanOrEqual(withPeople, 10, "the goldens should hold pictures with people")
    }

    func testAVideoGivesItsJSONLineAndItsClip() throws {
        // 2 s of black, 3 s of the crowd, 6 s of black, at 10 frames a second.
        let video = path("crowd.mp4")
        try ffmpeg([
            "-f", "lavfi", "-i", "color=black:s=768x576:r=10:d=2", "-loop", "1", "-t", "3", "-r", "10", "-i", Self.crowd,
            "-f", "lavfi", "-i", "color=black:s=768x576:r=10:d=6",
            "-filter_complex",
            "[0:v]format=yuv420p[a];[1:v]scale=768:576,format=yuv420p,setsar=1[b];[2:v]format=yuv420p[c];[a][b][c]concat=n=3:v=1:a=0",
            "-c:v", "libx264", "-crf", "15", "-r", "10", video,
        ])
        let clips = path("clips")
        let outcome = try WorkbenchBinary.run(["detect", video, "--json", "--clips", clips, "--threads", "2"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let lines = outcome.standardOutput.split(separator: "\n")
        XCTAssertEqual(lines.count, 1)
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(result["video"] as? String, video)
        let samples = try XCTUnwrap(result["samples"] as? [[String: Any]])
        XCTAssertEqual(samples.count, 55)
        let seen = samples.map { (($0["annotations"] as? [Any])?.count ?? 0) > 0 }
        // People from sample 10 (2.0 s) to 24 (4.8 s), nobody else.
        XCTAssertEqual(seen, (0..<55).map { (10..<25).contains($0) })
        let clip = try XCTUnwrap((result["clips"] as? [[String: Any]])?.first)
        XCTAssertEqual(clip["start"] as? Double, 2)
        XCTAssertEqual(clip["end"] as? Double, 9.8)
        XCTAssertEqual(clip["ended"] as? String, "no-person")
        let file = try XCTUnwrap(clip["file"] as? String)
        XCTAssertEqual(file, clips + "/crowd-1.mp4")
        let probe = try WorkbenchBinary.runProcess(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries", "stream=codec_name:format=duration",
                "-of", "csv=p=0", file,
            ], environment: [:])
        XCTAssertTrue(probe.standardOutput.hasPrefix("h264"), probe.standardOutput)
    }

    func testBadInputsGetOneLineAndWriteNothing() throws {
        let audio = path("sound.m4a")
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", audio])
        assertOneLine(try WorkbenchBinary.run(["detect", audio, "--clips", path("clips")]), naming: audio, containing: "no video stream")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("clips")), "nothing written")

        let empty = path("empty.mp4")
        try Data().write(to: URL(fileURLWithPath: empty))
        assertOneLine(try WorkbenchBinary.run(["detect", empty]), naming: empty, containing: "not a video file")

        // A video container holding no frame at all.
        let noFrames = path("no-frames.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "color=black:s=64x48:r=10:d=1", "-frames:v", "0", noFrames])
        let zero = try WorkbenchBinary.run(["detect", noFrames])
        XCTAssertEqual(zero.status, 1)
        XCTAssertEqual(zero.errorLines.count, 1, zero.standardError)
        XCTAssertTrue(zero.standardError.hasPrefix("workbench: \(noFrames)"), zero.standardError)

        let missing = path("missing.jpg")
        assertOneLine(try WorkbenchBinary.run(["detect", missing]), naming: missing, containing: "no such file")

        let corrupt = path("corrupt.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0x00, 1, 2, 3]).write(to: URL(fileURLWithPath: corrupt))
        let broken = try WorkbenchBinary.run(["detect", corrupt])
        XCTAssertEqual(broken.status, 1)
        XCTAssertTrue(broken.standardError.contains("workbench: \(corrupt): "), broken.standardError)

        XCTAssertEqual(mkfifo(path("pipe.jpg"), 0o644), 0)
        let fifo = try WorkbenchBinary.run(["detect", path("pipe.jpg")])
        XCTAssertEqual(fifo.status, 1)
        XCTAssertTrue(fifo.standardError.contains("not a regular file"), fifo.standardError)

        let picture = path("one.png")
        try ffmpeg(["-f", "lavfi", "-i", "color=black:s=64x48", "-frames:v", "1", picture])
        let mixed = try WorkbenchBinary.run(["detect", picture, audio])
        XCTAssertEqual(mixed.status, 1)
        XCTAssertTrue(mixed.standardError.contains("pictures and videos are not mixed"), mixed.standardError)
    }

    func testTinyAndPanoramaPicturesWork() throws {
        let tiny = path("tiny.png"), panorama = path("panorama.png")
        try ffmpeg(["-f", "lavfi", "-i", "color=gray:s=2x2", "-vf", "scale=1:1", "-pix_fmt", "rgb24", "-frames:v", "1", tiny])
        try ffmpeg(["-f", "lavfi", "-i", "color=gray:s=20000x300", "-frames:v", "1", panorama])
        let outcome = try WorkbenchBinary.run(["detect", tiny, panorama, "--tiles", "3", "--json"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let array = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [[String: Any]])
        XCTAssertEqual(array.map { $0["image"] as? String }, [tiny, panorama])
        XCTAssertEqual(array.map { ($0["annotations"] as? [Any])?.count }, [0, 0])
    }

    /// Issue 44, defect 4: `--tiles` made close-ups worse (two basketball players became four boxes, the astronaut
    /// three, the fruit bowl two people). On close-ups a tile setting gives no more boxes than the whole frame, and
    /// keeps each of its boxes; on a crowded frame it still finds at least the whole frame's people.
    func testTilesAddNoBoxToACloseUpAndStillHelpACrowd() throws {
        let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/DetectionTests/Fixtures/detector-images")
        let pictures = ["basketball1", "skimage-astronaut", "fruits", "messi5", "skimage-camera", "baboon", "vtest-020s"]
            .map { fixtures.appendingPathComponent("\($0).jpg").path }
        func boxes(tiles: Int) throws -> [[DetectionComparison.Box]] {
            let run = try WorkbenchBinary.run(["detect"] + pictures + ["--json", "--tiles", "\(tiles)"])
            XCTAssertEqual(run.status, 0, run.standardError)
            let results = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]])
            return try results.map { result in
                try XCTUnwrap(result["annotations"] as? [[String: Any]]).map { annotation in
                    let box = try XCTUnwrap(annotation["coordinates"] as? [String: Double])
                    let (x, y, width, height) = (box["x"] ?? .nan, box["y"] ?? .nan, box["width"] ?? .nan, box["height"] ?? .nan)
                    return DetectionComparison.Box(left: x - width / 2, top: y - height / 2, right: x + width / 2, bottom: y + height / 2)
                }
            }
        }
        func overlap(_ a: DetectionComparison.Box, _ b: DetectionComparison.Box) -> Double {
            let shared = max(0, min(a.right, b.right) - max(a.left, b.left)) * max(0, min(a.bottom, b.bottom) - max(a.top, b.top))
            let union = (a.right - a.left) * (a.bottom - a.top) + (b.right - b.left) * (b.bottom - b.top) - shared
            return union > 0 ? shared / union : 0
        }
        let whole = try boxes(tiles: 1)
        for tiles in [2, 3] {
            let tiled = try boxes(tiles: tiles)
            for (index, picture) in pictures.enumerated().dropLast() {
                XCTAssertLessThanOrEqual(tiled[index].count, whole[index].count, "--tiles \(tiles) on \(picture): \(tiled[index])")
                for box in whole[index] {
                    XCTAssertTrue(tiled[index].contains { overlap($0, box) > 0.5 }, "--tiles \(tiles) kept \(box) on \(picture)")
                }
            }
            XCTAssertGreaterThanOrEqual(tiled[pictures.count - 1].count, whole[pictures.count - 1].count, "--tiles \(tiles) on the crowd")
        }
        XCTAssertGreaterThan(whole.dropLast().map(\.count).reduce(0, +), 3, "the close-ups hold people to keep")
    }

    func testOutputsOverInputsAreRefusedBeforeAnyWork() throws {
        let pictures = path("pictures")
        try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
        let picture = pictures + "/one.png"
        try ffmpeg(["-f", "lavfi", "-i", "color=black:s=64x48", "-frames:v", "1", picture])
        let before = try Data(contentsOf: URL(fileURLWithPath: picture))
        // The annotated copy of pictures/one.png into pictures/ would be pictures/one.png itself.
        let over = try WorkbenchBinary.run(["detect", pictures, "--annotate", pictures])
        XCTAssertEqual(over.status, 1)
        XCTAssertEqual(over.errorLines.count, 1, over.standardError)
        XCTAssertTrue(over.standardError.contains(picture), over.standardError)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: picture)), before)

        let video = path("movie.mp4")
        try ffmpeg(["-f", "lavfi", "-i", "color=black:s=64x48:r=10:d=1", video])
        let captions = try WorkbenchBinary.run(["detect", video, "--vtt", video])
        XCTAssertEqual(captions.status, 1)
        XCTAssertEqual(captions.errorLines.count, 1, captions.standardError)
        XCTAssertTrue(captions.standardError.contains(video))
        let page = try WorkbenchBinary.run(["detect", video, "--html", path("page.html"), "--annotate", path("page.html")])
        XCTAssertEqual(page.status, 1, page.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("page.html")))
    }

    /// Pictures named with terminal escapes, tabs, bidi overrides …: every line on stdout and stderr escaped, one
    /// line per picture (issue 23's property through `detect`'s terminal lines).
    func testHostileNamesReachTheTerminalEscaped() throws {
        let pictures = path("hostile")
        try FileManager.default.createDirectory(atPath: pictures, withIntermediateDirectories: true)
        let source = path("source.png")
        try ffmpeg(["-f", "lavfi", "-i", "color=black:s=16x16", "-frames:v", "1", source])
        var names: [String: String] = [:]
        var index = 0
        HostileNames.check("detect's file names", count: 40, marker: "m") { name in
            // A name as a file: no slash, not empty, under the 255-byte limit with the number and extension.
            var file = String(name.replacingOccurrences(of: "/", with: "_").utf8.prefix(200)) ?? "x"
            if file.isEmpty || file == "." || file == ".." { file = "x" }
            index += 1
            let full = "\(index)-\(file).png"
            names[full] = name
            try? FileManager.default.copyItem(atPath: source, toPath: pictures + "/" + full)
            return nil
        }
        let outcome = try WorkbenchBinary.run(["detect", pictures])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertNil(HostileNames.terminalProblem(outcome.standardOutput))
        XCTAssertNil(HostileNames.terminalProblem(outcome.standardError))
        let lines = outcome.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(lines.count, try FileManager.default.contentsOfDirectory(atPath: pictures).filter { !$0.hasPrefix(".") }.count)
        XCTAssertTrue(lines.allSatisfy { $0.hasSuffix("\tnone") })
    }
}
