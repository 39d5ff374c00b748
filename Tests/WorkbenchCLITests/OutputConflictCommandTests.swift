import Foundation
import XCTest
import _TestSupport

/// Issue 23, items 4, 5 and 10 (third part), through the release binary: an output that is one of the command's
/// inputs or another of its outputs (by device and inode, or by resolved path for files still to be made) is
/// refused before any work, naming both; movie names that ffmpeg would read as URLs (`concat:`, `http:`) are the
/// local files; a review copy or reel with an ending no video container has is refused up front.
final class OutputConflictCommandTests: XCTestCase {
    nonisolated(unsafe) static var root: URL!
    nonisolated(unsafe) static var dataset: URL!
    nonisolated(unsafe) static var model: String!
    static let fixtures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures")

    private var folder: URL!
    private var model: String { Self.model }

    /// One cat-versus-espresso model for every test.
    override class func setUp() {
        super.setUp()
        do {
            root = try WorkbenchBinary.temporaryFolder()
            (dataset, model) = try TestMedia.tinyModel(in: root)
        } catch {
            fatalError("OutputConflictCommandTests set-up failed: \(error)")
        }
    }

    override class func tearDown() {
        try? FileManager.default.removeItem(at: root)
        super.tearDown()
    }

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
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

    /// `seconds` seconds of a fixture picture at 10 fps in the scratch folder.
    private func movie(_ name: String, picture: String = "chelsea.jpg", seconds: Int = 3) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Self.tool(
            "ffmpeg",
            [
                "-nostdin", "-loglevel", "error", "-y", "-loop", "1", "-i", Self.fixtures.appendingPathComponent(picture).path,
                "-t", "\(seconds)", "-r", "10", "-vf", "scale=320:240,format=yuv420p", "-c:v", "mpeg4", path,
            ])
        return path
    }

    /// Runs the binary in the scratch folder, so relative names are the scratch folder's.
    private func runHere(_ arguments: [String]) throws -> WorkbenchBinary.Outcome {
        try WorkbenchBinary.runProcess(
            try WorkbenchBinary.path(), arguments, environment: ProcessInfo.processInfo.environment,
            workingDirectory: folder)
    }

    /// Asserts a refusal: exit status 1, one line naming `output` and `other`, and the given `files` unchanged.
    private func assertRefused(
        _ outcome: WorkbenchBinary.Outcome, output: String, other: String, unchanged files: [String: Data],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(outcome.status, 1, outcome.standardError, file: file, line: line)
        XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError, file: file, line: line)
        let error = outcome.errorLines.first ?? ""
        XCTAssertTrue(error.hasPrefix("workbench: \(output): is the same file as the "), error, file: file, line: line)
        XCTAssertTrue(error.contains(" \(other): "), "names \(other): \(error)", file: file, line: line)
        XCTAssertEqual(outcome.standardOutput, "", "no work before the refusal", file: file, line: line)
        for (path, bytes) in files {
            XCTAssertEqual(FileManager.default.contents(atPath: path), bytes, "\(path) must be untouched", file: file, line: line)
        }
    }

    private func contents(_ paths: String...) -> [String: Data] {
        Dictionary(uniqueKeysWithValues: paths.map { ($0, FileManager.default.contents(atPath: $0) ?? Data()) })
    }

    // MARK: - Item 4: outputs over inputs

    func testLabelOutputsNeverReplaceTheMovieOrTheModel() throws {
        let video = try movie("movie.mp4")
        let saved = contents(video, model)
        for option in ["--annotate", "--vtt", "--html"] {
            let outcome = try WorkbenchBinary.run(["label", model, video, option, video])
            assertRefused(outcome, output: video, other: video, unchanged: saved)
            XCTAssertTrue(outcome.standardError.contains("the input \(video): an output must not replace an input"), outcome.standardError)
        }
        assertRefused(try WorkbenchBinary.run(["label", model, video, "--html", model]), output: model, other: model, unchanged: saved)
        assertRefused(
            try WorkbenchBinary.run(["label", model, video, "--highlights", "cat", "-o", video]),
            output: video, other: video, unchanged: saved)
        // Two outputs in one file, neither there yet: caught by resolved path (`x` against `./x`).
        let page = try runHere(["label", model, "movie.mp4", "--html", "review.html", "--vtt", "./review.html"])
        assertRefused(page, output: "./review.html", other: "review.html", unchanged: saved)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("review.html").path))
        // A review copy into the movie's own folder would be written over the movie (folder/<name>.mp4).
        let second = try movie("other.mp4", picture: "coffee.jpg", seconds: 2)
        let both = contents(video, second)
        let intoFolder = try WorkbenchBinary.run(["label", model, video, second, "--annotate", folder.path])
        assertRefused(intoFolder, output: video, other: video, unchanged: both)
        // A results folder that is a frames folder being labelled.
        let frames = folder.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent("chelsea.jpg"), to: frames.appendingPathComponent("1.jpg"))
        assertRefused(
            try WorkbenchBinary.run(["label", model, frames.path, "--results", frames.path]),
            output: frames.path, other: frames.path, unchanged: [:])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: frames.path), ["1.jpg"])
        // --movie-data is read and written by design, and still works.
        let movieData = folder.appendingPathComponent("MovieData.json").path
        let labelled = try WorkbenchBinary.run(["label", model, video, "--movie-data", movieData])
        XCTAssertEqual(labelled.status, 0, labelled.standardError)
        XCTAssertEqual(try WorkbenchBinary.run(["label", model, video, "--movie-data", movieData]).status, 0)
    }

    func testLinksAndOtherNamesOfTheSameFileAreCaught() throws {
        let video = try movie("movie.mp4")
        let saved = contents(video)
        let symbolic = folder.appendingPathComponent("link.mp4").path
        try FileManager.default.createSymbolicLink(atPath: symbolic, withDestinationPath: "movie.mp4")
        let hard = folder.appendingPathComponent("hard.mp4").path
        try FileManager.default.linkItem(atPath: video, toPath: hard)
        for other in [symbolic, hard] {
            assertRefused(try WorkbenchBinary.run(["label", model, video, "--annotate", other]), output: other, other: video, unchanged: saved)
        }
        assertRefused(
            try runHere(["label", model, "movie.mp4", "--vtt", "./movie.mp4"]), output: "./movie.mp4", other: "movie.mp4", unchanged: saved)
        // A dangling link to where another output will be made.
        let dangling = folder.appendingPathComponent("page-link.html").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "page.html")
        assertRefused(
            try runHere(["label", model, "movie.mp4", "--html", "page.html", "--vtt", "page-link.html"]),
            output: "page-link.html", other: "page.html", unchanged: saved)
    }

    func testTrainEvaluateExportAndFeaturesRefuseTheirInputsAndEachOther() throws {
        let saved = contents(model)
        let target = folder.appendingPathComponent("t.wbmodel").path
        let train = try WorkbenchBinary.run(["train", Self.dataset.path, "-o", target, "--html", target, "--no-cache"])
        assertRefused(train, output: target, other: target, unchanged: [:])
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "refused before training")
        // The page goes beside the model by default: t.html, which --report also names.
        let report = try runHere(["train", Self.dataset.path, "-o", "t.wbmodel", "--report", "t.html", "--no-cache"])
        assertRefused(report, output: "t.html", other: "t.html", unchanged: [:])
        XCTAssertTrue(report.standardError.contains("the output t.html: each output needs a file of its own"), report.standardError)
        let testing = Self.dataset.appendingPathComponent("Testing Data").path
        assertRefused(try WorkbenchBinary.run(["evaluate", model, testing, "--html", model]), output: model, other: model, unchanged: saved)
        assertRefused(try WorkbenchBinary.run(["export", model, "--format", "onnx", "-o", model]), output: model, other: model, unchanged: saved)
        let image = folder.appendingPathComponent("cat.jpg").path
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("chelsea.jpg").path, toPath: image)
        let imageBytes = contents(image)
        assertRefused(try WorkbenchBinary.run(["features", image, "-o", image]), output: image, other: image, unchanged: imageBytes)
        assertRefused(try WorkbenchBinary.run(["features", image, "--model", model, "-o", model]), output: model, other: model, unchanged: saved)
        // Devices are written through, never replaced: two outputs to /dev/null are fine.
        let devices = try WorkbenchBinary.run(["label", model, try movie("movie.mp4"), "--html", "/dev/null", "--vtt", "/dev/null"])
        XCTAssertEqual(devices.status, 0, devices.standardError)
    }

    // MARK: - Issue 45, defects 1 and 2: every file the command reads, and the clips

    /// Asserts a refusal before any work: exit status 1, one line naming `output` and `other`, `files` unchanged,
    /// and nothing on stdout.
    private func assertRefusedNaming(
        _ outcome: WorkbenchBinary.Outcome, _ output: String, _ other: String, unchanged files: [String: Data],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(outcome.status, 1, outcome.standardError, file: file, line: line)
        XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError, file: file, line: line)
        let error = outcome.errorLines.first ?? ""
        XCTAssertTrue(error.hasPrefix("workbench: \(output): "), error, file: file, line: line)
        XCTAssertTrue(error.contains(other), "names \(other): \(error)", file: file, line: line)
        XCTAssertEqual(outcome.standardOutput, "", "no work before the refusal", file: file, line: line)
        for (path, bytes) in files {
            XCTAssertEqual(FileManager.default.contents(atPath: path), bytes, "\(path) must be untouched", file: file, line: line)
        }
    }

    func testTrainRefusesToWriteOverTheDatasetsOwnFiles() throws {
        // A detector dataset: its annotations and its pictures, as the annotations list them.
        let boxes = folder.appendingPathComponent("d")
        try SyntheticDetectionDataset.write(to: boxes, count: 3, side: 48, seed: 1)
        let annotations = boxes.appendingPathComponent("annotations.json").path
        let picture = boxes.appendingPathComponent("picture-001.png").path
        let saved = contents(annotations, picture)
        assertRefusedNaming(
            try WorkbenchBinary.run(["train", boxes.path, "-o", annotations, "--no-cache"]), annotations, annotations, unchanged: saved)
        assertRefusedNaming(
            try WorkbenchBinary.run(["train", boxes.path, "--html", picture, "-o", folder.appendingPathComponent("d.wbmodel").path]),
            picture, picture, unchanged: saved)
        // A classifier dataset: any of its training pictures.
        let dataset = folder.appendingPathComponent("c")
        try FileManager.default.copyItem(at: Self.dataset, to: dataset)
        let cats = dataset.appendingPathComponent("Training Data/cat")
        let first = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: cats.path).sorted().first)
        let image = cats.appendingPathComponent(first).path
        assertRefusedNaming(
            try WorkbenchBinary.run(["train", dataset.path, "-o", image, "--no-cache"]), image, image, unchanged: contents(image))
        XCTAssertFalse(FileManager.default.fileExists(atPath: cats.appendingPathComponent((first as NSString).deletingPathExtension + ".html").path))
    }

    func testDetectRefusesToWriteOverTheWeightsAndTheClips() throws {
        let video = try movie("a.mp4", seconds: 1)
        let weights = folder.appendingPathComponent("person.safetensors").path
        try FileManager.default.copyItem(
            atPath: WorkbenchBinary.repositoryRoot().appendingPathComponent("models/ssdlite-mobilenetv2-person.safetensors").path,
            toPath: weights)
        let saved = contents(video, weights)
        for option in ["--vtt", "--html"] {
            assertRefusedNaming(
                try WorkbenchBinary.run(["detect", video, "--detector", weights, option, weights]), weights, weights, unchanged: saved)
        }
        // The clips are a-1.mp4, a-2.mp4 … in their folder: no other output may take such a name there.
        let clips = folder.appendingPathComponent("clips").path
        for option in ["--vtt", "--annotate", "--html"] {
            let clip = clips + "/a-1.mp4"
            assertRefusedNaming(
                try WorkbenchBinary.run(["detect", video, "--detector", weights, "--clips", clips, option, clip]), clip, clips,
                unchanged: saved)
            XCTAssertFalse(FileManager.default.fileExists(atPath: clips), "refused before the folder is made")
        }
    }

    // MARK: - Item 10 (third part): review copies and reels need a video container's ending

    func testReviewCopyAndReelWithAnEndingNoContainerHasAreRefusedUpFront() throws {
        let video = try movie("movie.mp4")
        for arguments in [
            ["--annotate", folder.appendingPathComponent("out.txt").path],
            ["--highlights", "cat", "-o", folder.appendingPathComponent("out.txt").path],
        ] {
            let outcome = try WorkbenchBinary.run(["label", model, video] + arguments)
            XCTAssertEqual(outcome.status, 1, outcome.standardError)
            XCTAssertEqual(
                outcome.errorLines,
                [
                    "workbench: \(folder.appendingPathComponent("out.txt").path): cannot write a video "
                        + "ending in .txt: name it .mp4, .m4v, .mov or .mkv"
                ])
            XCTAssertEqual(outcome.standardOutput, "", "refused before labelling")
        }
        let copy = folder.appendingPathComponent("copy.MKV").path
        let annotated = try WorkbenchBinary.run(["label", model, video, "--annotate", copy])
        XCTAssertEqual(annotated.status, 0, annotated.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: copy))
    }

    // MARK: - Item 5: movie names are never read as URLs

    func testMovieNamesThatLookLikeURLsAreTheLocalFiles() throws {
        // "concat:small.mp4" holds 3 s of the cat; read as a URL it would be small.mp4, 2 s of espresso.
        let cat = try movie("concat:small.mp4")
        _ = try movie("small.mp4", picture: "coffee.jpg", seconds: 2)
        try FileManager.default.copyItem(atPath: cat, toPath: folder.appendingPathComponent("http:x.mp4").path)
        let plain = try WorkbenchBinary.run(["label", model, cat])
        XCTAssertEqual(plain.status, 0, plain.standardError)
        let lines = plain.standardOutput.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, plain.standardOutput)
        XCTAssertTrue(lines.allSatisfy { $0.contains("  cat  ") }, plain.standardOutput)
        for name in ["concat:small.mp4", "http:x.mp4"] {
            let outcome = try runHere(["label", model, name])
            XCTAssertEqual(outcome.status, 0, "\(name): \(outcome.standardError)")
            XCTAssertEqual(outcome.standardOutput, plain.standardOutput, name)
        }
        // Outputs with such names are written as named, in the working directory.
        let annotated = try runHere(["label", model, "http:x.mp4", "--annotate", "concat:copy.mp4", "--highlights", "cat", "-o", "http:reel.mp4"])
        XCTAssertEqual(annotated.status, 0, annotated.standardError)
        for name in ["concat:copy.mp4", "http:reel.mp4"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            XCTAssertGreaterThan(size, 1000, name)
        }
    }
}
