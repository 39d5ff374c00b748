import Foundation
import XCTest
import _TestSupport

/// `train --fine-tune` through the release binary on the small generated dataset: the progress lines (each fold named,
/// then the decision and the refit) and the
/// report section, byte-identical model files for the same seed and threads, a fine-tuned model that `classify`
/// reads back with the probabilities training computed, and bad option values refused with one line.
final class FineTuneCommandTests: TinyDatasetTestCase {
    /// Training's probabilities come from the trainable network, `classify`'s from the inference network built
    /// from the model file's converted tensors: float rounding of the folded weights and of the identity batch
    /// norm, through two blocks and the head.
    static let probabilityTolerance = 2e-3

    /// One block, two epochs, two threads: seconds, and the thread split exercised.
    private func fineTune(_ model: String, extra: [String] = []) throws -> WorkbenchBinary.Outcome {
        try run(
            ["train", dataset.path, "-o", model] + (extra.contains("--html") ? [] : ["--no-html"]) + [
                "--fine-tune", "--fine-tune-blocks", "2", "--epochs", "2",
                "--batch-size", "4", "--threads", "2", "--keep-fine-tuned",
            ] + extra)
    }

    func testFoldsChooseTheRefitIsRepeatableAndTheProgressNamesTheFold() throws {
        let first = folder.appendingPathComponent("a.wbmodel").path, second = folder.appendingPathComponent("b.wbmodel").path
        let reportPath = folder.appendingPathComponent("report.json").path
        let pagePath = folder.appendingPathComponent("folds.html").path
        let trained = try fineTune(first, extra: ["--report", reportPath, "--html", pagePath])
        XCTAssertEqual(trained.status, 0, trained.standardError)
        // Progress: the frozen head's held-out accuracy first, then each fold's epochs, the decision, the refit.
        let lines = trained.errorLines
        let frozenLine = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("frozen head: held-out accuracy ") }, trained.standardError)
        let epochLines = lines.indices.filter { lines[$0].hasPrefix("fold ") }
        XCTAssertEqual(epochLines.count, 6, trained.standardError)
        XCTAssertGreaterThan(epochLines[0], frozenLine)
        for fold in 1...3 {
            for epoch in 1...2 {
                XCTAssertTrue(
                    lines.contains { $0.hasPrefix("fold \(fold)/3 epoch \(epoch)/2  loss ") }, "fold \(fold) epoch \(epoch): \(trained.standardError)"
                )
            }
        }
        let line = lines[epochLines[0]]
        XCTAssertTrue(line.contains("held-out ") && line.contains("images/s") && line.hasSuffix(" left"), line)
        let decisionLine = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("decision: ") }, trained.standardError)
        XCTAssertTrue(lines[decisionLine].hasSuffix("kept fine-tuning as asked (--keep-fine-tuned)"), lines[decisionLine])
        // The default refits are several, each naming itself.
        let refits = 3  // train --help's default
        let refitLines = lines.indices.filter { lines[$0].hasPrefix("refit ") && lines[$0].contains(" epoch ") }
        XCTAssertFalse(refitLines.isEmpty, trained.standardError)
        XCTAssertGreaterThan(refitLines[0], decisionLine)
        XCTAssertTrue(
            trained.standardOutput.contains("Fine-tuning (blocks 14-15, the final 1x1 convolution and the head"),
            trained.standardOutput)
        XCTAssertTrue(trained.standardOutput.contains("decision (3 stratified folds): "), trained.standardOutput)

        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        let section = try XCTUnwrap(report["fineTuning"] as? [String: Any])
        XCTAssertEqual(section["trainedBlocks"] as? Int, 2)
        XCTAssertEqual(section["firstTrainedBlock"] as? Int, 14)
        XCTAssertEqual(section["keptFrozenModel"] as? Bool, false)
        XCTAssertEqual((section["epochs"] as? [[String: Any]])?.count, 2)
        XCTAssertNotNil((section["epochs"] as? [[String: Any]])?.first?["seconds"] as? Double, "the report keeps the seconds")
        let frozen = try XCTUnwrap(section["frozenHeldOutAccuracy"] as? Double), tuned = try XCTUnwrap(section["fineTunedHeldOutAccuracy"] as? Double)
        XCTAssertEqual(try XCTUnwrap(section["gain"] as? Double), tuned - frozen, accuracy: 1e-12)
        let folds = try XCTUnwrap(section["folds"] as? [[String: Any]])
        XCTAssertEqual(folds.count, 3)
        XCTAssertEqual(folds.map { $0["heldOutImages"] as? Int ?? 0 }.reduce(0, +), 12, "every training image held out once")
        let decision = try XCTUnwrap(section["decision"] as? [String: Any])
        XCTAssertEqual(decision["refit"] as? Bool, true)
        XCTAssertEqual(decision["method"] as? String, "3 stratified folds")
        let epoch = try XCTUnwrap(decision["epoch"] as? Int)
        XCTAssertEqual(refitLines.count, epoch * refits, "each refit runs the chosen epochs")
        for refit in 1...refits {
            XCTAssertEqual(lines.filter { $0.hasPrefix("refit \(refit)/\(refits) epoch ") }.count, epoch, trained.standardError)
        }
        XCTAssertEqual(section["refits"] as? Int, refits)
        XCTAssertEqual((section["refitLosses"] as? [Double])?.count, epoch)
        XCTAssertNil(section["heldOutPredictions"], "after a refit the held-out predictions are the folds' models', not the file's")

        // Same seed and threads: the same bytes (folds, decision and refit included).
        XCTAssertEqual(try fineTune(second).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first)), try Data(contentsOf: URL(fileURLWithPath: second)))
        let inspect = try run(["inspect", first])
        XCTAssertEqual(inspect.status, 0, inspect.standardError)
        XCTAssertTrue(
            inspect.standardOutput.contains("\(epoch == 1 ? "1 epoch" : "\(epoch) epochs") (the average of \(refits) refits)"),
            "the model file records the soup: \(inspect.standardOutput)")
        let inspected = try run(["inspect", first, "--json"])
        let record = (try JSONSerialization.jsonObject(with: Data(inspected.standardOutput.utf8)) as? [String: Any])?["fineTuning"] as? [String: Any]
        XCTAssertEqual(record?["refits"] as? Int, refits, inspected.standardOutput)

        // The page shows each fold and the decision, and renders clean.
        let check = try PageCheck.run(page: pagePath)
        XCTAssertEqual(check.consoleErrors, [])
        for fragment in ["fine-tuning fold 1", "fine-tuning fold 3", "fine-tuning decision", "kept fine-tuning as asked"] {
            XCTAssertTrue(check.text.contains(fragment), "the page names \(fragment)")
        }
    }

    func testRefitsAreAveragedIntoOneRepeatableModel() throws {
        let soup = folder.appendingPathComponent("soup.wbmodel").path, again = folder.appendingPathComponent("again.wbmodel").path
        let single = folder.appendingPathComponent("single.wbmodel").path
        let reportPath = folder.appendingPathComponent("soup.json").path
        let trained = try fineTune(soup, extra: ["--refits", "2", "--report", reportPath])
        XCTAssertEqual(trained.status, 0, trained.standardError)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        let section = try XCTUnwrap(report["fineTuning"] as? [String: Any])
        XCTAssertEqual(section["refits"] as? Int, 2)
        let epoch = try XCTUnwrap((section["decision"] as? [String: Any])?["epoch"] as? Int)
        // Each refit names itself in the progress, for every chosen epoch; the text says the model is their average.
        for refit in 1...2 {
            let lines = trained.errorLines.filter { $0.hasPrefix("refit \(refit)/2 epoch ") }
            XCTAssertEqual(lines.count, epoch, "refit \(refit): \(trained.standardError)")
        }
        XCTAssertTrue(
            trained.standardOutput.contains("for \(epoch) epochs (the average of 2 refits with their own seeds)"),
            trained.standardOutput)
        // The same seed and threads give the same soup; one refit alone is another model: its answers differ (the
        // files would differ anyway, since the report they carry records the refits).
        XCTAssertEqual(try fineTune(again, extra: ["--refits", "2"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: soup)), try Data(contentsOf: URL(fileURLWithPath: again)))
        XCTAssertEqual(try fineTune(single, extra: ["--refits", "1"]).status, 0)
        let pictures = dataset.appendingPathComponent("Testing Data").path
        let soupAnswers = try run(["classify", soup, pictures, "--json"]), singleAnswers = try run(["classify", single, pictures, "--json"])
        XCTAssertEqual(soupAnswers.status, 0, soupAnswers.standardError)
        XCTAssertEqual(singleAnswers.status, 0, singleAnswers.standardError)
        XCTAssertFalse(soupAnswers.standardOutput.isEmpty)
        XCTAssertNotEqual(soupAnswers.standardOutput, singleAnswers.standardOutput, "the average of two refits answers as the first refit alone")
    }

    func testAValidationFolderChoosesTheEpochAndAllTrainingImagesTrain() throws {
        let model = folder.appendingPathComponent("v.wbmodel").path, reportPath = folder.appendingPathComponent("v.json").path
        let validation = dataset.appendingPathComponent("Testing Data").path
        let outcome = try run([
            "train", dataset.path, "-o", model, "--no-html", "--fine-tune", "--fine-tune-blocks", "1",
            "--epochs", "1", "--augmentations", "none", "--validation", validation, "--keep-fine-tuned",
            "--report", reportPath,
        ])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        let section = try XCTUnwrap(report["fineTuning"] as? [String: Any])
        XCTAssertEqual(section["trainingImages"] as? Int, 12, "every training image trains")
        XCTAssertEqual(section["heldOutImages"] as? Int, 4, "the validation folder's images choose the epoch")
        XCTAssertEqual(section["augmentations"] as? [String], [])
        XCTAssertEqual(section["firstTrainedBlock"] as? Int, 15)
        XCTAssertEqual((section["decision"] as? [String: Any])?["refit"] as? Bool, false, "the validation folder's run is the model")
        let inspected = try run(["inspect", model, "--json"])
        XCTAssertEqual(inspected.status, 0, inspected.standardError)
        let record = try XCTUnwrap(
            (JSONSerialization.jsonObject(with: Data(inspected.standardOutput.utf8)) as? [String: Any])?["fineTuning"]
                as? [String: Any])
        XCTAssertEqual(record["epochs"] as? Int, section["bestEpoch"] as? Int)
        XCTAssertNil(record["refits"], "no refit, so the record counts none")

        // classify reproduces training's held-out probabilities: no refit, so they are the written model's own.
        let predictions = try XCTUnwrap(section["heldOutPredictions"] as? [[String: Any]])
        XCTAssertFalse(predictions.isEmpty)
        let labels = try XCTUnwrap(report["labels"] as? [String])
        for prediction in predictions {
            let path = try XCTUnwrap(prediction["path"] as? String)
            let expected = try XCTUnwrap(prediction["probabilities"] as? [Double])
            let classified = try run(["classify", model, path, "--json"])
            XCTAssertEqual(classified.status, 0, classified.standardError)
            let line = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(classified.standardOutput.utf8)) as? [String: Any])
            let probabilities = try XCTUnwrap(line["probabilities"] as? [String: Double])
            for (index, label) in labels.enumerated() {
                XCTAssertEqual(try XCTUnwrap(probabilities[label]), expected[index], accuracy: Self.probabilityTolerance, "\(path) \(label)")
            }
        }
    }

    func testFineTuneAutoSaysWhyInOneLine() throws {
        let model = folder.appendingPathComponent("auto.wbmodel").path, reportPath = folder.appendingPathComponent("auto.json").path
        let outcome = try run([
            "train", dataset.path, "-o", model, "--no-html", "--fine-tune-auto", "--fine-tune-blocks", "1",
            "--epochs", "1", "--batch-size", "4", "--augmentations", "none", "--threads", "2", "--report", reportPath,
        ])
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        let choice = try XCTUnwrap(report["fineTuningChoice"] as? [String: Any])
        let reason = try XCTUnwrap(choice["reason"] as? String)
        XCTAssertTrue(outcome.errorLines.contains(reason), outcome.standardError)
        XCTAssertTrue(outcome.standardOutput.contains("--fine-tune-auto: \(reason)"), outcome.standardOutput)
        // The reason matches what was done.
        let fineTunes = try XCTUnwrap(choice["fineTunes"] as? Bool)
        XCTAssertEqual(report["fineTuning"] != nil, fineTunes)
        XCTAssertTrue(reason.hasPrefix(fineTunes ? "fine-tuning: " : "not fine-tuned: "), reason)
    }

    /// A dataset's own val/ folder chooses the epoch as --validation does: no refit, so --refits is refused there too.
    func testRefitsAreRefusedWithTheDatasetsOwnValidationFolder() throws {
        let split = folder.appendingPathComponent("split"), files = FileManager.default
        try files.createDirectory(at: split, withIntermediateDirectories: true)
        try files.copyItem(at: dataset.appendingPathComponent("Training Data"), to: split.appendingPathComponent("train"))
        try files.copyItem(at: dataset.appendingPathComponent("Testing Data"), to: split.appendingPathComponent("val"))
        let model = folder.appendingPathComponent("split.wbmodel").path
        let outcome = try run(["train", split.path, "-o", model, "--no-html", "--fine-tune", "--epochs", "1", "--refits", "2"])
        XCTAssertNotEqual(outcome.status, 0)
        XCTAssertEqual(
            outcome.errorLines.last,
            "workbench: \(split.path)/val: with a validation folder fine-tuning does not refit, "
                + "so --refits 2 would do nothing; drop it", outcome.standardError)
        XCTAssertFalse(files.fileExists(atPath: model))
    }

    func testBadFineTuningOptionsAreRefusedWithOneLine() throws {
        let model = folder.appendingPathComponent("bad.wbmodel").path
        let cases: [([String], String)] = [
            (["--fine-tune", "--fine-tune-blocks", "0"], "--fine-tune-blocks must be from 1 to 16, got 0"),
            (["--fine-tune", "--fine-tune-blocks", "17"], "--fine-tune-blocks must be from 1 to 16, got 17"),
            (["--fine-tune", "--epochs", "0"], "--epochs must be from 1 to 1000, got 0"),
            (["--fine-tune", "--batch-size", "0"], "--batch-size must be from 1 to 1024, got 0"),
            (["--fine-tune", "--learning-rate", "2"], "--learning-rate must be from 1e-07 to 1.0, got 2.0"),
            (["--fine-tune", "--learning-rate", "nan"], "--learning-rate must be from 1e-07 to 1.0, got nan"),
            (["--epochs", "3"], "--epochs needs --fine-tune"),
            (["--learning-rate", "0.001"], "--learning-rate needs --fine-tune"),
            (["--fine-tune", "--backbone-learning-rate", "3"], "--backbone-learning-rate must be from 1e-07 to 1.0, got 3.0"),
            (["--backbone-learning-rate", "3e-5"], "--backbone-learning-rate needs --fine-tune"),
            (["--fine-tune", "--fine-tuned-weight", "0"], "--fine-tuned-weight must be above 0 and at most 1, got 0.0"),
            (["--fine-tune", "--fine-tuned-weight", "1.5"], "--fine-tuned-weight must be above 0 and at most 1, got 1.5"),
            (["--fine-tuned-weight", "0.5"], "--fine-tuned-weight needs --fine-tune"),
            (["--fine-tune", "--refits", "0"], "--refits must be from 1 to 8, got 0"),
            (["--fine-tune", "--refits", "9"], "--refits must be from 1 to 8, got 9"),
            (["--refits", "3"], "--refits needs --fine-tune"),
            (
                ["--fine-tune", "--refits", "2", "--validation", dataset.path],
                "--refits averages refits on all training images, and with --validation there is none"
            ),
            (["--fine-tune", "--validation-fraction", "0"], "--fine-tune needs held-out images to choose its epoch"),
            (["--fine-tune-auto", "--validation-fraction", "0"], "--fine-tune-auto needs held-out images to choose its epoch"),
            (["--fine-tune", "--fine-tune-auto"], "--fine-tune and --fine-tune-auto exclude each other"),
            (["--refit", "all"], "--refit is for detectors: DATASET has no annotations.json"),
        ]
        for (options, message) in cases {
            let outcome = try run(["train", dataset.path, "-o", model] + options)
            XCTAssertNotEqual(outcome.status, 0, "\(options)")
            XCTAssertTrue(outcome.standardError.contains(message), "\(options): \(outcome.standardError)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: model), "\(options) wrote a model")
        }
        // A dataset that is not there is named as missing, not called a classifier dataset, with a detector option.
        let nowhere = folder.appendingPathComponent("nowhere").path
        for option in [["--refit", "all"], ["--crops", "2"]] {
            let missing = try run(["train", nowhere, "-o", model] + option)
            XCTAssertNotEqual(missing.status, 0)
            XCTAssertEqual(missing.errorLines, ["workbench: \(nowhere): folder does not exist"], "\(option)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: model))
        }
    }
}
