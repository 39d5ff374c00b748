import Foundation
import XCTest
import _TestSupport

/// `--tta` through the release binary: `train --tta` stores the default (with `--no-flip`, views that never
/// mirror), `inspect` shows it, `classify`, `evaluate` and `label` follow it unless told `--no-tta`, a model without
/// the default averages only when asked, and a Core ML export says plainly that it does not carry the views.
final class TestTimeAugmentationCommandTests: TinyDatasetTestCase {
    /// `classify --json` confidences by file name.
    private func confidences(_ arguments: [String]) throws -> [String: Double] {
        let outcome = try run(["classify"] + arguments + ["--json"])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        var result: [String: Double] = [:]
        for line in outcome.standardOutput.split(separator: "\n") {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try XCTUnwrap(object["path"] as? String)
            result[URL(fileURLWithPath: path).lastPathComponent] = try XCTUnwrap(object["confidence"] as? Double)
        }
        return result
    }

    func testTrainTTAStoresTheDefaultAndEveryCommandFollowsIt() throws {
        let model = folder.appendingPathComponent("averaged.wbmodel").path
        let train = try run(["train", dataset.path, "-o", model, "--no-html", "--tta", "--no-flip"])
        XCTAssertEqual(train.status, 0, train.standardError)
        let inspect = try run(["inspect", model])
        XCTAssertTrue(
            inspect.standardOutput.contains("tta          on by default (2 views, never mirrored; --no-tta turns it off)"),
            inspect.standardOutput)

        let testing = dataset.appendingPathComponent("Testing Data").path
        let byDefault = try confidences([model, testing])
        XCTAssertEqual(try confidences([model, testing, "--tta"]), byDefault, "the stored default is --tta")
        let plain = try confidences([model, testing, "--no-tta"])
        XCTAssertEqual(Set(plain.keys), Set(byDefault.keys))
        XCTAssertNotEqual(plain, byDefault, "--no-tta answers on the image alone")

        let evaluate = try run(["evaluate", model, dataset.path, "--json", "--no-tta"])
        XCTAssertEqual(evaluate.status, 0, evaluate.standardError)
        XCTAssertEqual(try run(["evaluate", model, dataset.path]).status, 0)

        // A frames folder: label's per-frame confidences follow the same default.
        let frames = folder.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        let labelFolder = testing + "/" + (try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: testing).sorted().first))
        let images = try FileManager.default.contentsOfDirectory(atPath: labelFolder).sorted()
        for (index, name) in images.prefix(2).enumerated() {
            try FileManager.default.copyItem(
                atPath: labelFolder + "/" + name,
                toPath: frames.appendingPathComponent("\(index + 1).\((name as NSString).pathExtension)").path)
        }
        let labelled = try run(["label", model, frames.path, "--json"])
        let unaveraged = try run(["label", model, frames.path, "--json", "--no-tta"])
        XCTAssertEqual(labelled.status, 0, labelled.standardError)
        XCTAssertEqual(unaveraged.status, 0, unaveraged.standardError)
        XCTAssertNotEqual(labelled.standardOutput, unaveraged.standardOutput, "label --no-tta answers on the frame alone")

        // Core ML cannot carry the views: one warning line, and the file is still written.
        let coreML = folder.appendingPathComponent("averaged.mlmodel").path
        let export = try run(["export", model, "--format", "coreml", "-o", coreML])
        XCTAssertEqual(export.status, 0, export.standardError)
        XCTAssertEqual(
            export.errorLines.filter { $0.contains("test-time augmentation is not carried by Core ML") }.count, 1,
            export.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: coreML))
    }

    func testAModelWithoutTheDefaultAveragesOnlyWhenAsked() throws {
        let model = folder.appendingPathComponent("plain.wbmodel").path
        XCTAssertEqual(try run(["train", dataset.path, "-o", model, "--no-html"]).status, 0)
        let inspect = try run(["inspect", model])
        XCTAssertTrue(inspect.standardOutput.contains("tta          off by default (--tta: 4 views, mirrored)"), inspect.standardOutput)
        let testing = dataset.appendingPathComponent("Testing Data").path
        let plain = try confidences([model, testing])
        XCTAssertEqual(try confidences([model, testing, "--no-tta"]), plain)
        XCTAssertNotEqual(try confidences([model, testing, "--tta"]), plain)
        let export = try run(["export", model, "--format", "coreml", "-o", folder.appendingPathComponent("plain.mlmodel").path])
        XCTAssertEqual(export.status, 0, export.standardError)
        XCTAssertFalse(export.standardError.contains("not carried"), "nothing to carry, nothing to warn about")
    }
}
