import Foundation
import XCTest
import _TestSupport

/// Issue 23, items 6, 7, 8 and 10 through the release binary: a progressive JPEG that would need gigabytes to
/// decode is refused and the run stays small; a held-out share that holds out nothing is refused with the count; a
/// diverging fine-tuning run stops and keeps the frozen model, and its table tells the truth; a model file whose
/// tensor bytes changed is refused.
final class LimitsAndIntegrityCommandTests: TinyDatasetTestCase {
    /// What a folder of images may cost `features`, the bound issue 23 set (the 16,000 × 16,000 progressive file
    /// took 781 MB before).
    static let peakMemoryLimitKilobytes = 500_000

    // MARK: - Item 6: progressive JPEGs

    /// What a run under `/usr/bin/time` printed, without time's lines, and its peak resident memory.
    private struct MeasuredRun {
        var status: Int32
        var standardOutput: String
        var errorLines: [String]
        var peakKilobytes: Int
    }

    /// Runs `workbench arguments...` under `/usr/bin/time`, which reports the peak resident memory of the process.
    private func runMeasured(_ arguments: [String]) throws -> MeasuredRun {
        let marker = "peak-resident-kilobytes "
        let outcome = try WorkbenchBinary.runProcess(
            "/usr/bin/time", ["-f", marker + "%M", try WorkbenchBinary.path()] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(workspace.environment) { $1 })
        let lines = outcome.errorLines
        let measured = try XCTUnwrap(lines.last { $0.hasPrefix(marker) }, outcome.standardError)
        let kilobytes = try XCTUnwrap(Int(measured.dropFirst(marker.count)), measured)
        let rest = lines.filter { !$0.hasPrefix(marker) && !$0.hasPrefix("Command exited with non-zero status") }
        return MeasuredRun(
            status: outcome.status, standardOutput: outcome.standardOutput, errorLines: rest,
            peakKilobytes: kilobytes)
    }

    /// `scripts/fixtures/make-progressive-jpeg-fixtures.py` into `folder`: the 16,000 × 16,000 one (1,056 MB of
    /// coefficients in 31 KB) and a progressive photo.
    private func makeProgressiveFixtures(in folder: URL) throws {
        let root = WorkbenchBinary.repositoryRoot()
        let maker = try WorkbenchBinary.runProcess(
            try ProjectPython.interpreter(),
            [
                root.appendingPathComponent("scripts/fixtures/make-progressive-jpeg-fixtures.py").path, folder.path,
            ], environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(maker.status, 0, maker.standardError)
    }

    func testAProgressiveJPEGThatWouldNeedTooMuchMemoryIsRefusedAndAProgressivePhotoDecodes() throws {
        let images = folder.appendingPathComponent("images")
        try makeProgressiveFixtures(in: images)
        let bomb = images.appendingPathComponent("progressive-16000.jpg").path
        let photo = images.appendingPathComponent("progressive-photo.jpg").path
        let refusal = "\(bomb): progressive JPEG would need 1056 MB to decode; limit 250 MB"

        let output = folder.appendingPathComponent("features.jsonl").path
        let features = try runMeasured(["features", images.path, "--json", "-o", output, "--threads", "2"])
        XCTAssertEqual(features.status, 1, "a refused file makes the exit status non-zero: \(features.errorLines)")
        XCTAssertEqual(features.errorLines.filter { $0.contains("progressive-16000.jpg") }, [refusal], "\(features.errorLines)")
        XCTAssertLessThan(features.peakKilobytes, Self.peakMemoryLimitKilobytes, "peak \(features.peakKilobytes) KB")
        let written = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(written.count, 1, "the progressive photo is embedded")
        let line = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        XCTAssertEqual(line["path"] as? String, photo)
        XCTAssertEqual((line["features"] as? [Double])?.count, 1280)

        // The file named alone: the same line and nothing embedded.
        let alone = try runMeasured(["features", bomb])
        XCTAssertEqual(alone.status, 1)
        XCTAssertTrue(alone.errorLines.contains(refusal), "\(alone.errorLines)")
        XCTAssertEqual(alone.standardOutput, "")
        XCTAssertLessThan(alone.peakKilobytes, Self.peakMemoryLimitKilobytes, "peak \(alone.peakKilobytes) KB")
    }

    // MARK: - Item 7: a held-out share that holds out nothing

    /// Leaves `count` training images per label (the tiny dataset has 6).
    private func keepTrainingImages(_ count: Int) throws {
        for label in ["cat", "espresso"] {
            let labelFolder = dataset.appendingPathComponent("Training Data").appendingPathComponent(label)
            let names = try FileManager.default.contentsOfDirectory(atPath: labelFolder.path).sorted()
            for name in names.dropFirst(count) { try FileManager.default.removeItem(at: labelFolder.appendingPathComponent(name)) }
        }
    }

    func testAHeldOutShareThatHoldsOutNoImageIsRefusedWithTheCount() throws {
        try keepTrainingImages(4)
        let model = folder.appendingPathComponent("m.wbmodel").path
        let start =
            "workbench: a held-out share of 50 % holds out 0 of the 8 training images: only a label with at least 5 "
            + "images gives some, and the largest here has 4; "

        let train = try run(["train", dataset.path, "-o", model, "--no-html", "--validation-fraction", "0.5"])
        XCTAssertEqual(train.status, 1, train.standardOutput)
        XCTAssertEqual(
            train.errorLines.last,
            start + "nothing to choose the L2 strength on: give a validation folder, add "
                + "images, or cross-validate (no held-out share)", train.standardError)
        XCTAssertFalse(train.standardOutput.contains("l2 chosen"), "no choice made on zero images")
        XCTAssertFalse(FileManager.default.fileExists(atPath: model), "no model written")

        let fineTune = try run([
            "train", dataset.path, "-o", model, "--no-html", "--validation-fraction", "0.5", "--fine-tune",
            "--epochs", "1",
        ])
        XCTAssertEqual(fineTune.status, 1, fineTune.standardOutput)
        XCTAssertEqual(
            fineTune.errorLines.last,
            start + "fine-tuning chooses its epoch on held-out images: give a validation "
                + "folder or add images", fineTune.standardError)
        XCTAssertFalse(fineTune.standardError.contains("not cross-validation"), "a share was given: " + fineTune.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: model), "no model written")

        // Cross-validation (no share) still trains on the same 8 images.
        let crossValidated = try run(["train", dataset.path, "-o", model, "--no-html"])
        XCTAssertEqual(crossValidated.status, 0, crossValidated.standardError)
    }

    // MARK: - Item 8: diverging fine-tuning

    func testDivergingFineTuningStopsKeepsTheFrozenModelAndTheTableTellsTheTruth() throws {
        let model = folder.appendingPathComponent("d.wbmodel").path, reportPath = folder.appendingPathComponent("d.json").path
        let trained = try run([
            "train", dataset.path, "-o", model, "--no-html", "--report", reportPath, "--fine-tune",
            "--fine-tune-blocks", "1", "--epochs", "6", "--batch-size", "4", "--threads", "2",
            "--augmentations", "none", "--learning-rate", "1", "--keep-fine-tuned",
        ])
        XCTAssertEqual(trained.status, 0, trained.standardError)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        let section = try XCTUnwrap(report["fineTuning"] as? [String: Any])
        let epochs = try XCTUnwrap(section["epochs"] as? [[String: Any]])
        let diverged = try XCTUnwrap(section["divergedAtEpoch"] as? Int, "learning rate 1 diverges: \(trained.standardError)")
        XCTAssertEqual(epochs.count, diverged, "no epoch runs after the divergence")
        // The rule: a loss that is not finite (not a JSON number) or over 10 times the start's, at least ln 2 here.
        let losses = epochs.compactMap { $0["loss"] as? Double }
        XCTAssertTrue(losses.count < epochs.count || !(losses.last! <= 10 * log(2.0)), "the rule: \(losses)")
        XCTAssertEqual(section["keptFrozenModel"] as? Bool, true, "kept frozen even with --keep-fine-tuned")
        XCTAssertEqual(section["bestEpoch"] as? Int, 0)
        XCTAssertTrue(
            trained.errorLines.contains {
                $0.hasPrefix("warning: fine-tuning diverged at epoch \(diverged) (")
                    && $0.hasSuffix("): stopped and kept the frozen model; try a lower learning rate")
            },
            trained.standardError)
        XCTAssertTrue(
            trained.standardOutput.contains("fine-tuning diverged at epoch \(diverged) and stopped: kept the frozen model"),
            trained.standardOutput)
        // The fine-tuned row is a trained epoch's accuracy, never the untrained start's.
        let bestTrained = try XCTUnwrap(section["bestTrainedEpoch"] as? Int)
        XCTAssertTrue((1...epochs.count).contains(bestTrained))
        XCTAssertEqual(section["fineTunedHeldOutAccuracy"] as? Double, epochs[bestTrained - 1]["heldOutAccuracy"] as? Double)
        XCTAssertTrue(
            trained.standardOutput.contains("fine-tuned, best epoch \(bestTrained) of \(epochs.count) (not kept)"),
            trained.standardOutput)

        let inspect = try run(["inspect", model])
        XCTAssertEqual(inspect.status, 0, inspect.standardError)
        XCTAssertTrue(inspect.standardOutput.contains("pretrained ImageNet weights (frozen)"), inspect.standardOutput)
        let classify = try run(["classify", model, dataset.appendingPathComponent("Testing Data").path, "--json"])
        XCTAssertEqual(classify.status, 0, classify.standardError)
        let answers = try classify.standardOutput.split(separator: "\n").map {
            try XCTUnwrap((JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["label"] as? String)
        }
        XCTAssertEqual(Set(answers), ["cat", "espresso"], "the frozen model tells the labels apart")
    }

    // MARK: - Item 10: a damaged model file

    func testAModelWhoseTensorBytesChangedIsRefused() throws {
        let model = folder.appendingPathComponent("t.wbmodel").path
        let trained = try run(["train", dataset.path, "-o", model, "--no-html"])
        XCTAssertEqual(trained.status, 0, trained.standardError)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: model)))
        let headerLength = (0..<8).reduce(0) { $0 | Int(bytes[$1]) << (8 * $1) }
        let dataStart = 8 + headerLength
        // 1,000 bytes spread over the tensor data, each with its lowest bit flipped: a mantissa bit of a little-endian
        // float, so every weight stays finite and only the checksum can tell.
        let stride = (bytes.count - dataStart) / 1000
        for index in 0..<1000 { bytes[dataStart + index * stride - (index * stride) % 4] ^= 0x01 }
        let damaged = folder.appendingPathComponent("damaged.wbmodel").path
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))

        let image = dataset.appendingPathComponent("Testing Data/cat").path
        for arguments in [["classify", damaged, image, "--json"], ["inspect", damaged]] {
            let outcome = try run(arguments)
            XCTAssertEqual(outcome.status, 1, arguments[0])
            XCTAssertEqual(outcome.errorLines, ["workbench: \(damaged): tensor data checksum does not match: the file is damaged"])
            XCTAssertEqual(outcome.standardOutput, "", "no answers from a damaged model")
        }
        let intact = try run(["classify", model, image, "--json"])
        XCTAssertEqual(intact.status, 0, intact.standardError)
    }
}
