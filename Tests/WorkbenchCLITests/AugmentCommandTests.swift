import Foundation
import XCTest
import _TestSupport

/// `train --augment N` through the release binary: views train the head, stay out of the held-out predictions,
/// are reported, repeat exactly whatever the threads; the options are checked with one line.
final class AugmentCommandTests: TinyDatasetTestCase {
    func testViewsTrainTheHeadAreReportedAndRepeatWhateverTheThreads() throws {
        let plain = folder.appendingPathComponent("plain.wbmodel").path
        XCTAssertEqual(try run(["train", dataset.path, "-o", plain, "--no-html"]).status, 0)
        let first = folder.appendingPathComponent("a.wbmodel").path, second = folder.appendingPathComponent("b.wbmodel").path
        let reportPath = folder.appendingPathComponent("report.json").path
        let train = try run([
            "train", dataset.path, "-o", first, "--augment", "2", "--no-flip",
            "--threads", "2", "--report", reportPath,
        ])
        XCTAssertEqual(train.status, 0, train.standardError)
        XCTAssertTrue(
            train.standardOutput.contains("Augmentation: 2 views of each training image (crop 35–100 % of the area"),
            train.standardOutput)
        XCTAssertFalse(train.standardOutput.contains("flip"), "--no-flip leaves the mirror out")
        XCTAssertTrue(train.standardError.contains(", views "), train.standardError)

        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        let settings = try XCTUnwrap(report["settings"] as? [String: Any])
        XCTAssertEqual(settings["augmentedViews"] as? Int, 2)
        XCTAssertTrue((settings["augmentation"] as? String)?.hasPrefix("crop") ?? false)
        // The page's settings table says so too.
        let page = try String(contentsOfFile: folder.appendingPathComponent("a.html").path, encoding: .utf8)
        XCTAssertTrue(
            page.contains("augmented views") && page.contains("2 per training image for the head (crop"),
            "the settings table lacks the views")
        // Views are rows of the head's fit, not images: the counts and held-out predictions are the images'.
        let validation = try XCTUnwrap(report["validation"] as? [String: Any])
        XCTAssertEqual(validation["count"] as? Int, 12)
        XCTAssertEqual(validation["predictions"] as? Int, 60)
        XCTAssertEqual((report["training"] as? [String: Any])?["count"] as? Int, 12)
        XCTAssertEqual((report["testing"] as? [String: Any])?["count"] as? Int, 4)

        // The views changed the head; the same views at 1 thread give the same model byte for byte.
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: plain)), try Data(contentsOf: URL(fileURLWithPath: first)))
        let again = try run(["train", dataset.path, "-o", second, "--no-html", "--augment", "2", "--no-flip", "--threads", "1"])
        XCTAssertEqual(again.status, 0, again.standardError)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first)), try Data(contentsOf: URL(fileURLWithPath: second)))
        // Views are never cached: only the 16 images' features are.
        let cached = try FileManager.default.subpathsOfDirectory(atPath: folder.appendingPathComponent("cache").path)
        XCTAssertEqual(cached.filter { $0.hasSuffix(".feat") }.count, 16)
    }

    func testAugmentationOptionsAreCheckedWithOneLine() throws {
        let model = folder.appendingPathComponent("bad.wbmodel").path
        let cases: [([String], String)] = [
            (["--augment", "21"], "Error: --augment must be between 0 and 20, got 21"),
            (["--augmentations", "crop"], "Error: --augmentations chooses the views of --augment N, --fine-tune or --fine-tune-auto: add one"),
            (["--no-flip"], "Error: --no-flip chooses the views of --augment N, --fine-tune, --fine-tune-auto or --tta: add one"),
            (
                ["--augment", "1", "--augmentations", "crop,zoom"],
                "Error: --augmentations: unknown augmentation 'zoom' (known: crop, flip, rotate, color, blur, noise, or all, or none)"
            ),
            (["--augment", "1", "--augmentations", "crop,crop"], "Error: --augmentations: augmentation 'crop' is listed twice"),
            (
                ["--augment", "1", "--augmentations", "flip", "--no-flip"],
                "Error: --augmentations lists flip and --no-flip removes it: keep one"
            ),
            (["--augment", "1", "--augmentations", "none"], "Error: --augmentations none leaves no augmentation to make views with"),
        ]
        for (arguments, message) in cases {
            let outcome = try run(["train", dataset.path, "-o", model] + arguments)
            XCTAssertEqual(outcome.status, 64, "\(arguments): usage errors exit 64")
            XCTAssertEqual(outcome.errorLines.first, message, "\(arguments)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: model))
        }
    }
}
