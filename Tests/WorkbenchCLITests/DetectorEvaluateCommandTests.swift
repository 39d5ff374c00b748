import Foundation
import XCTest
import _TestSupport

/// `evaluate` with a detector model, through the release binary: a tiny model trained once for the class (small
/// pictures, input 96, 3 epochs: seconds) on a synthetic dataset with "Training Data/" and "Testing Data/", whose
/// testing scores `train` reported are what `evaluate` must print for the same pictures.
final class DetectorEvaluateCommandTests: XCTestCase {
    struct Fixture {
        /// The class's temporary folder.
        var folder: URL
        /// `shapes/Training Data`, `shapes/Testing Data`, each with its annotations.json.
        var dataset: URL
        /// `Shapes.wbmodel`, trained on `dataset`.
        var model: String
        /// The `testing` section of train's `--json` report.
        var testing: [String: Any]
    }

    nonisolated(unsafe) private static var made: Result<Fixture, Error>?

    private func fixture() throws -> Fixture {
        if Self.made == nil { Self.made = Result { try Self.makeFixture() } }
        return try XCTUnwrap(Self.made).get()
    }

    override class func tearDown() {
        if let fixture = try? made?.get() { try? FileManager.default.removeItem(at: fixture.folder) }
        made = nil
        super.tearDown()
    }

    private static func makeFixture() throws -> Fixture {
        let folder = try WorkbenchBinary.temporaryFolder()
        let dataset = folder.appendingPathComponent("shapes")
        try SyntheticDetectionDataset.write(to: dataset.appendingPathComponent("Training Data"), count: 16, side: 96, seed: 5)
        try SyntheticDetectionDataset.write(to: dataset.appendingPathComponent("Testing Data"), count: 6, side: 96, seed: 6)
        let model = folder.appendingPathComponent("Shapes.wbmodel").path
        let trained = try WorkbenchBinary.run(
            [
                "train", dataset.path, "-o", model, "--input-side", "96", "--epochs", "3", "--crops", "0",
                "--threads", "2", "--no-html", "--json",
            ],
            environment: ["WORKBENCH_CACHE": folder.appendingPathComponent("training-cache").path])
        try TestMedia.check(trained, "train on the synthetic shapes")
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(trained.standardOutput.utf8)) as? [String: Any])
        return Fixture(folder: folder, dataset: dataset, model: model, testing: try XCTUnwrap(report["testing"] as? [String: Any]))
    }

    /// `evaluate` with a cache of its own, so its maps are computed again rather than read from train's.
    private func evaluate(_ arguments: [String], _ fixture: Fixture) throws -> WorkbenchBinary.Outcome {
        try WorkbenchBinary.run(
            ["evaluate", fixture.model] + arguments + ["--threads", "2"],
            environment: ["WORKBENCH_CACHE": fixture.folder.appendingPathComponent("evaluation-cache").path])
    }

    /// Issue 44, item 8: a box that overshoots its picture by a few pixels is cut to it with one warning, not
    /// refused; a file with several problems names them all; the page of one picture says "1 picture".
    func testAnOvershootingBoxIsCutWithOneWarningAndEveryProblemIsNamed() throws {
        let fixture = try fixture()
        let picture = fixture.dataset.appendingPathComponent("Testing Data/picture-000.png").path
        let folder = fixture.folder.appendingPathComponent("overshoot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("boxes.json").path
        // 96 × 96: the square's right edge at 99 is 3 px out (the limit is 4 px); the disc's top at -2, 2 px out.
        try #"[{"image": "\#(picture)", "annotations": [{"label": "square", "coordinates": {"x": 79, "y": 40, "width": 40, "height": 30}},"#
            .appending(#" {"label": "disc", "coordinates": {"x": 20, "y": 13, "width": 20, "height": 30}}]}]"#)
            .write(toFile: file, atomically: true, encoding: .utf8)
        let page = folder.appendingPathComponent("one.html").path
        let outcome = try evaluate([file, "--html", page], fixture)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        XCTAssertEqual(
            outcome.errorLines.filter { $0.hasPrefix("warning:") },
            [
                "warning: \(file): 2 boxes reach past the edges of their pictures (up to 3 px: entry 1 (\"\(picture)\"), box 1 "
                    + "(\"square\"), 96 × 96); cut to them and kept"
            ], outcome.standardError)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains("on the 1 picture of"), "one picture, not \"1 pictures\"")
        XCTAssertFalse(html.contains("1 pictures"))

        try
            #"[{"image": "missing.png", "annotations": []}, {"image": "\#(picture)", "annotations": [{"label": "square", "coordinates": {"x": 90, "y": 40, "width": 40, "height": 30}}]}]"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try evaluate([file], fixture)
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(
            refused.errorLines,
            [
                "workbench: \(file): 2 problems:",
                "  entry 1 (\"missing.png\"): no such picture \(folder.path)/missing.png (names are relative to the folder of \(file))",
                "  entry 2 (\"\(picture)\"), box 1 (\"square\"): edges left 70, top 25, right 110, bottom 55 reach 14 px outside the 96 × 96 "
                    + "picture (at most 4 px is cut off; x and y are the box's centre)",
            ], refused.standardError)
    }

    func testTheTestingScoresAreTrainsAsJSONTextAndPage() throws {
        let fixture = try fixture()
        XCTAssertEqual(fixture.testing["imageCount"] as? Int, 6)

        // The dataset folder: its "Testing Data/" is scored, to the same numbers train reported.
        let json = try evaluate([fixture.dataset.path, "--json"], fixture)
        XCTAssertEqual(json.status, 0, json.standardError)
        let scores = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(NSDictionary(dictionary: scores), NSDictionary(dictionary: fixture.testing), json.standardOutput)

        // The testing folder itself and its annotations file (detect --json's shape) are the same pictures.
        let testingFolder = fixture.dataset.appendingPathComponent("Testing Data")
        for given in [testingFolder.path, testingFolder.appendingPathComponent("annotations.json").path] {
            let again = try evaluate([given, "--json"], fixture)
            XCTAssertEqual(again.status, 0, again.standardError)
            let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(again.standardOutput.utf8)) as? [String: Any])
            XCTAssertEqual(NSDictionary(dictionary: parsed), NSDictionary(dictionary: fixture.testing), given)
        }

        // The text: train's table with F1, at the stored threshold, and the page.
        let page = fixture.folder.appendingPathComponent("evaluation.html").path
        let text = try evaluate([fixture.dataset.path, "--html", page], fixture)
        XCTAssertEqual(text.status, 0, text.standardError)
        let threshold = try XCTUnwrap(fixture.testing["threshold"] as? Double)
        let lines = text.standardOutput.components(separatedBy: "\n")
        XCTAssertEqual(
            lines.first,
            "Detector \(fixture.model): 2 labels, score threshold \(String(format: "%.3f", threshold)) "
                + "(the model's, best held-out F1)")
        XCTAssertTrue(lines.contains("label     boxes  reported  AP@0.5  AP@.5:.95  precision  recall     F1"), text.standardOutput)
        let all = try XCTUnwrap(lines.first { $0.hasPrefix("all ") }, text.standardOutput)
        let mAP50 = (fixture.testing["meanAveragePrecision50"] as? Double).map { String(format: "%.3f", $0) } ?? "—"
        XCTAssertTrue(all.contains(" \(mAP50) "), all)
        XCTAssertEqual(lines.last { !$0.isEmpty }, "report written to \(page)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        for expected in [
            "Detector evaluation: ", "shapes", "Testing Data/annotations.json", "mAP@0.5", "disc", "square",
            "data:image/jpeg;base64,", "<svg",
        ] {
            XCTAssertTrue(html.contains(expected), expected)
        }

        // --min-score moves precision and recall, not the mAPs.
        let lower = try evaluate([fixture.dataset.path, "--min-score", "0.05", "--json"], fixture)
        XCTAssertEqual(lower.status, 0, lower.standardError)
        let atLower = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lower.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(atLower["threshold"] as? Double, 0.05)
        XCTAssertEqual(atLower["meanAveragePrecision50"] as? Double, fixture.testing["meanAveragePrecision50"] as? Double)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(atLower["recall"] as? Double), try XCTUnwrap(fixture.testing["recall"] as? Double))
    }

    func testTTAAveragesEachPictureWithItsMirror() throws {
        let fixture = try fixture()
        let work = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let original = fixture.dataset.appendingPathComponent("Testing Data/picture-000.png")
        let mirror = work.appendingPathComponent("mirror.png")
        try SyntheticDetectionDataset.writeMirror(of: original, to: mirror)

        /// Each picture's boxes, best first: label, score, centre x, centre y, width, height.
        func boxes(_ options: [String]) throws -> [[(label: String, values: [Double])]] {
            let run = try WorkbenchBinary.run(
                [
                    "detect", original.path, mirror.path, "--model", fixture.model, "--json",
                    "--min-score", "0.05", "--threads", "2",
                ] + options)
            XCTAssertEqual(run.status, 0, run.standardError)
            let pictures = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]])
            return try pictures.map { picture in
                try XCTUnwrap(picture["annotations"] as? [[String: Any]]).map { box in
                    let at = try XCTUnwrap(box["coordinates"] as? [String: Double])
                    return (
                        try XCTUnwrap(box["label"] as? String),
                        [try XCTUnwrap(box["confidence"] as? Double), at["x"] ?? .nan, at["y"] ?? .nan, at["width"] ?? .nan, at["height"] ?? .nan]
                    )
                }
            }
        }
        /// Whether the mirror's boxes are the picture's mirrored (x → 96 − x), scores equal.
        func symmetric(_ found: [[(label: String, values: [Double])]]) -> Bool {
            guard found.count == 2, found[0].count == found[1].count else { return false }
            return zip(found[0], found[1]).allSatisfy { here, there in
                here.label == there.label && abs(here.values[0] - there.values[0]) < 1e-4 && abs(here.values[1] - (96 - there.values[1])) < 0.01
                    && zip(here.values.dropFirst(2), there.values.dropFirst(2)).allSatisfy { abs($0 - $1) < 0.01 }
            }
        }
        // Averaged with its mirror, a picture and its mirror image get the same answer, mirrored; the network alone
        // does not (its stride-2 padding is one-sided), so this tells the averaging apart from a plain run.
        let averaged = try boxes(["--tta"]), plain = try boxes([])
        XCTAssertFalse(averaged[0].isEmpty)
        XCTAssertFalse(plain[0].isEmpty)
        XCTAssertTrue(symmetric(averaged), "\(averaged)")
        XCTAssertFalse(symmetric(plain))

        // evaluate --tta finds detect --tta's boxes exactly: scored against them as the truth, every box matches at
        // every IoU up to 0.95; the plain run's boxes sit elsewhere.
        let truth = work.appendingPathComponent("averaged.json")
        let found = try WorkbenchBinary.run([
            "detect", original.path, mirror.path, "--model", fixture.model, "--json", "--tta",
            "--min-score", "0.05", "--threads", "2",
        ])
        XCTAssertEqual(found.status, 0, found.standardError)
        try Data(found.standardOutput.utf8).write(to: truth)
        func strictMeanAP(_ options: [String]) throws -> Double {
            let run = try evaluate([truth.path, "--json"] + options, fixture)
            XCTAssertEqual(run.status, 0, run.standardError)
            let scores = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
            XCTAssertEqual(scores["imageCount"] as? Int, 2)
            return try XCTUnwrap(scores["meanAveragePrecision"] as? Double)
        }
        XCTAssertEqual(try strictMeanAP(["--tta"]), 1, accuracy: 1e-9)
        XCTAssertLessThan(try strictMeanAP([]), 0.99)
        let text = try evaluate([truth.path, "--tta"], fixture)
        XCTAssertTrue(text.standardOutput.contains("; each picture averaged with its mirror (--tta)"), text.standardOutput)

        let person = try WorkbenchBinary.run(["detect", original.path, "--tta"])
        XCTAssertNotEqual(person.status, 0)
        XCTAssertEqual(
            person.errorLines.first,
            "Error: --tta (mirror averaging) is for detector models trained by workbench train (--model), not the person detector")
    }

    func testBadInputIsOneLine() throws {
        let fixture = try fixture()
        let files = FileManager.default
        let work = fixture.folder.appendingPathComponent("bad")
        try files.createDirectory(at: work, withIntermediateDirectories: true)

        // A classifier's dataset: label subfolders, no annotations.
        let labelled = work.appendingPathComponent("labelled")
        try files.createDirectory(at: labelled.appendingPathComponent("square"), withIntermediateDirectories: true)
        try files.copyItem(
            at: fixture.dataset.appendingPathComponent("Testing Data/picture-000.png"),
            to: labelled.appendingPathComponent("square/a.png"))
        // Training annotations and no testing ones.
        let trainingOnly = work.appendingPathComponent("training-only")
        try files.createDirectory(at: trainingOnly, withIntermediateDirectories: true)
        try files.copyItem(at: fixture.dataset.appendingPathComponent("Training Data"), to: trainingOnly.appendingPathComponent("Training Data"))
        // An entry naming a picture that is not there, and a label the model does not know.
        let missing = work.appendingPathComponent("missing.json")
        try Data(#"[{"image": "gone.png", "annotations": []}]"#.utf8).write(to: missing)
        let unknown = work.appendingPathComponent("unknown.json")
        let picture = fixture.dataset.appendingPathComponent("Testing Data/picture-000.png").path
        try Data(
            #"[{"image": "\#(picture)", "annotations": [{"label": "triangle", "coordinates": {"x": 20, "y": 20, "width": 10, "height": 10}}]}]"#.utf8
        )
        .write(to: unknown)

        let cases: [([String], String)] = [
            (
                [labelled.path],
                "workbench: \(labelled.path): no annotations.json here or in \"Testing Data/\": a detector is scored on boxes "
                    + "(Create ML's annotations or detect --json's output), not on folders of labelled images"
            ),
            (
                [trainingOnly.path],
                "workbench: \(trainingOnly.path): has no \"Testing Data/annotations.json\" to score a detector on (its "
                    + "training pictures would flatter it); give a folder or annotations file of other pictures"
            ),
            ([work.appendingPathComponent("nowhere").path], "workbench: \(work.path)/nowhere: no such file or folder"),
            ([unknown.path], "workbench: \(unknown.path): label 'triangle' is not one of the model's labels (disc, square)"),
            ([fixture.dataset.path, "--shard", "1/2"], "Error: --shard is for classifiers; \(fixture.model) is a detector model"),
            ([fixture.dataset.path, "--min-score", "2"], "Error: --min-score must be between 0 and 1, got 2.0"),
        ]
        for (arguments, line) in cases {
            let run = try evaluate(arguments, fixture)
            XCTAssertNotEqual(run.status, 0, "\(arguments)")
            XCTAssertEqual(run.errorLines.first, line, "\(arguments)")
            XCTAssertEqual(run.standardOutput, "", "\(arguments)")
        }
        let gone = try evaluate([missing.path], fixture)
        XCTAssertEqual(gone.status, 1)
        XCTAssertEqual(gone.errorLines.count, 1, gone.standardError)
        XCTAssertTrue(gone.standardError.hasPrefix("workbench: \(missing.path): entry 1 (\"gone.png\")"), gone.standardError)

        // A page that would overwrite an input (the model) is refused before any work, and the model is left as it was.
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.model))
        let clash = try evaluate([fixture.dataset.path, "--html", fixture.model], fixture)
        XCTAssertEqual(clash.status, 1)
        XCTAssertEqual(clash.errorLines.count, 1, clash.standardError)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: fixture.model)), before)
    }
}
