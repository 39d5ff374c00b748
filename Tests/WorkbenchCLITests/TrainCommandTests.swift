import Foundation
import XCTest
import _TestSupport

/// `train → evaluate → classify → inspect` through the release binary on a small generated dataset, and the
/// bad inputs each command must refuse with one line.
final class TrainCommandTests: TinyDatasetTestCase {
    /// Copies the model file `source` to `destination` through Python's safetensors, running `script` with
    /// `tensors` (name → numpy array) and `metadata` (name → string) in scope, and `json` imported.
    private func editModel(
        _ source: String, into destination: String, script: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let edit = Process()
        edit.executableURL = URL(fileURLWithPath: try ProjectPython.interpreter())
        edit.arguments = [
            "-c",
            """
            import json, sys
            from safetensors import safe_open
            from safetensors.numpy import load_file, save_file
            with safe_open(sys.argv[1], "np") as f: metadata = f.metadata()
            tensors = load_file(sys.argv[1])
            exec(sys.argv[3])
            # Sealed again like a writer would (format version 4): the data section is the tensors sorted by name.
            if "tensor_data_sha256" in metadata:
                import hashlib
                data = b"".join(tensors[n].astype("<f4").tobytes() for n in sorted(tensors))
                metadata["tensor_data_sha256"] = hashlib.sha256(data).hexdigest()
            save_file(tensors, sys.argv[2], metadata=metadata)
            """, source, destination, script,
        ]
        try edit.run()
        edit.waitUntilExit()
        XCTAssertEqual(edit.terminationStatus, 0, "editing \(source)", file: file, line: line)
    }

    func testTrainEvaluateClassifyInspect() throws {
        let model = folder.appendingPathComponent("Tiny.wbmodel").path
        let reportPath = folder.appendingPathComponent("report.json").path
        let train = try run(["train", dataset.path, "-o", model, "--report", reportPath])
        XCTAssertEqual(train.status, 0, train.standardError)
        XCTAssertTrue(train.standardOutput.contains("training"), train.standardOutput)
        XCTAssertTrue(train.standardOutput.hasSuffix("model written to \(model)\n"), "the model's path comes last")

        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        for split in ["training", "validation", "testing"] {
            let summary = try XCTUnwrap(report[split] as? [String: Any], split)
            let accuracy = try XCTUnwrap(summary["accuracy"] as? Double)
            XCTAssertTrue((0...1).contains(accuracy), "\(split) accuracy is a fraction")
            XCTAssertNotNil(summary["count"] as? Int)
        }
        XCTAssertEqual((report["testing"] as? [String: Any])?["count"] as? Int, 4)
        XCTAssertEqual((report["testing"] as? [String: Any])?["accuracy"] as? Double, 1.0, "a cat and an espresso are easy")
        XCTAssertEqual(report["labels"] as? [String], ["cat", "espresso"])
        // Held-out predictions by repeated 5-fold cross-validation over all 12 training images, then a refit on all.
        let validation = try XCTUnwrap(report["validation"] as? [String: Any])
        XCTAssertEqual(validation["count"] as? Int, 12, "every training image is held out once per repeat")
        XCTAssertEqual(validation["predictions"] as? Int, 60, "12 images, 5 repeats")
        let interval = try XCTUnwrap(validation["interval"] as? [String: Double])
        XCTAssertLessThanOrEqual(interval["lower"]!, validation["accuracy"] as! Double)
        XCTAssertGreaterThanOrEqual(interval["upper"]!, validation["accuracy"] as! Double)
        let selection = try XCTUnwrap(report["selection"] as? [String: Any])
        XCTAssertEqual(selection["method"] as? String, "5-fold cross-validation, 5 repeats")
        XCTAssertEqual((selection["grid"] as? [[String: Any]])?.count, 9)
        XCTAssertEqual(selection["refitOnAllTrainingImages"] as? Bool, true)
        XCTAssertEqual(
            (report["counts"] as? [[String: Any]])?.map { $0["validation"] as? Int }, [6, 6],
            "per-label held-out counts")
        let calibration = try XCTUnwrap(report["calibration"] as? [String: Any])
        XCTAssertEqual(calibration["bins"] as? Int, 15)
        XCTAssertNotNil(calibration["testingAfter"] as? Double)
        XCTAssertEqual(((report["thresholds"] as? [String: Any])?["table"] as? [Any])?.count, 14)
        for fragment in ["validation (5-fold)", "95 % interval", "l2 chosen:", "calibration: temperature", "confidence ≥"] {
            XCTAssertTrue(train.standardOutput.contains(fragment), "\(fragment) missing from: \(train.standardOutput)")
        }
        XCTAssertEqual(
            train.standardOutput.contains("--fine-tune-auto tries it"), (validation["accuracy"] as! Double) < 0.8,
            "the fine-tuning hint follows the held-out accuracy: \(train.standardOutput)")

        let evaluate = try run(["evaluate", model, dataset.appendingPathComponent("Testing Data").path, "--json"])
        XCTAssertEqual(evaluate.status, 0, evaluate.standardError)
        let evaluation = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(evaluate.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(evaluation["accuracy"] as? Double, 1.0)
        XCTAssertEqual(evaluation["confusionMatrix"] as? [[Int]], [[2, 0], [0, 2]])

        let testingCat = dataset.appendingPathComponent("Testing Data/cat").path
        let classify = try run(["classify", model, testingCat, "--json"])
        XCTAssertEqual(classify.status, 0, classify.standardError)
        let predictions = try classify.standardOutput.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(predictions.count, 2)
        for prediction in predictions {
            XCTAssertEqual(prediction["label"] as? String, "cat")
            let probabilities = try XCTUnwrap(prediction["probabilities"] as? [String: Double])
            XCTAssertEqual(Set(probabilities.keys), ["cat", "espresso"])
            XCTAssertEqual(probabilities.values.reduce(0, +), 1, accuracy: 1e-5)
            XCTAssertEqual(prediction["confidence"] as? Double ?? -1, probabilities["cat"]!, accuracy: 1e-6)
        }
        let score = try run(["classify", model, testingCat, "--label", "espresso", "--json"])
        XCTAssertEqual(score.status, 0, score.standardError)
        let first = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(score.standardOutput.split(separator: "\n")[0].utf8)) as? [String: Any])
        XCTAssertEqual(first["label"] as? String, "espresso", "--label reports the asked label")
        XCTAssertLessThan(first["confidence"] as? Double ?? 1, 0.5)

        let inspect = try run(["inspect", model])
        XCTAssertEqual(inspect.status, 0, inspect.standardError)
        XCTAssertTrue(inspect.standardOutput.contains("cat, espresso"), inspect.standardOutput)
        XCTAssertTrue(inspect.standardOutput.contains("224"), inspect.standardOutput)
        XCTAssertTrue(inspect.standardOutput.contains("temperature  "), inspect.standardOutput)
        XCTAssertTrue(inspect.standardOutput.contains("threshold    none"), inspect.standardOutput)
        XCTAssertTrue(
            inspect.standardOutput.contains(
                "preprocess   tf_crop_pad32 (version 1): 224×224 RGB, centre crop 224/256, "
                    + "bicubic-antialiased, (x − [127, 127, 127]) / [128, 128, 128], alpha onto (255, 255, 255)"),
            inspect.standardOutput)
        XCTAssertTrue(inspect.standardOutput.contains("pretrained ImageNet weights (frozen)"), inspect.standardOutput)
        let inspectJSON = try run(["inspect", model, "--json"])
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(inspectJSON.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual((summary["preprocessing"] as? [String: Any])?["version"] as? Int, 1)
        XCTAssertNil(summary["fineTuning"])

        // The same model with block 15 and the head convolution "fine-tuned" (weights scaled by 1.2, with the
        // record): inspect shows the record, and classify computes with the stored backbone, not set-up's.
        let tuned = folder.appendingPathComponent("Tuned.wbmodel").path
        try editModel(
            model, into: tuned,
            script: """
                names = sorted(n for n in tensors if n.startswith("backbone._blocks.15.") or n.startswith("backbone._conv_head.") or n.startswith("backbone._bn1."))
                for n in names:
                    if n.endswith("conv.weight") or n.endswith("_conv_head.weight"): tensors[n] = tensors[n] * 1.2
                metadata["fine_tuning"] = json.dumps({"firstTrainedBlock": 15, "trainedTensorNames": [n[len("backbone."):] for n in names],
                                                      "epochs": 4, "augmentations": ["horizontal flip", "blur"]})
                """)
        let tunedInspect = try run(["inspect", tuned])
        XCTAssertEqual(tunedInspect.status, 0, tunedInspect.standardError)
        for fragment in [
            "fine-tuned from block 15: block 15 and the final 1×1 convolution, 4 epochs, augmentations: horizontal flip, blur",
            "augmented    horizontal flip, blur",
        ] {
            XCTAssertTrue(tunedInspect.standardOutput.contains(fragment), "\(fragment) missing from: \(tunedInspect.standardOutput)")
        }
        let tunedEvaluation = try run(["evaluate", tuned, dataset.appendingPathComponent("Testing Data").path, "--json"])
        XCTAssertEqual(tunedEvaluation.status, 0, tunedEvaluation.standardError)
        let tunedReport = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(tunedEvaluation.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual((tunedReport["fineTuning"] as? [String: Any])?["firstTrainedBlock"] as? Int, 15)
        XCTAssertEqual((tunedReport["backbone"] as? String)?.hasPrefix("fine-tuned from block 15"), true, "\(tunedReport["backbone"] ?? "")")
        XCTAssertEqual((tunedReport["preprocessing"] as? [String: Any])?["alphaBackground"] as? [Int], [255, 255, 255])
        XCTAssertNil(evaluation["fineTuning"], "a frozen model has no record")

        // features --model embeds with the model's backbone: the frozen model's equal set-up's, the tuned one's differ.
        let image = dataset.appendingPathComponent("Testing Data/cat").path
        func features(_ extra: [String]) throws -> [Double] {
            let outcome = try run(["features", image, "--json"] + extra)
            XCTAssertEqual(outcome.status, 0, outcome.standardError)
            let line = try XCTUnwrap(outcome.standardOutput.split(separator: "\n").first)
            return try XCTUnwrap((JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["features"] as? [Double])
        }
        let pretrained = try features([]), frozen = try features(["--model", model]), fineTuned = try features(["--model", tuned])
        XCTAssertEqual(frozen, pretrained)
        XCTAssertGreaterThan(zip(fineTuned, pretrained).map { abs($0 - $1) }.max() ?? 0, 0.01)

        // The unlikely label's confidence is far from saturation, so a changed backbone shows in it.
        let tunedScore = try run(["classify", tuned, testingCat, "--label", "espresso", "--json"])
        XCTAssertEqual(tunedScore.status, 0, tunedScore.standardError)
        let frozenConfidence = try XCTUnwrap(first["confidence"] as? Double)
        let tunedFirst = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(tunedScore.standardOutput.split(separator: "\n")[0].utf8)) as? [String: Any])
        let tunedConfidence = try XCTUnwrap(tunedFirst["confidence"] as? Double)
        XCTAssertGreaterThan(
            abs(tunedConfidence - frozenConfidence) / max(tunedConfidence, frozenConfidence), 0.01,
            "classify must use the model file's (changed) backbone: \(frozenConfidence) vs \(tunedConfidence)")

        // No threshold was asked for: --abstain and --min-confidence auto refuse with one line.
        let abstain = try run(["classify", model, testingCat, "--abstain"])
        XCTAssertEqual(abstain.status, 1)
        XCTAssertEqual(
            abstain.errorLines, ["workbench: \(model): the model has no confidence threshold to abstain below: train it with a target precision"])
        let auto = try run(["label", model, testingCat, "--min-confidence", "auto"])
        XCTAssertEqual(auto.status, 1)
        XCTAssertTrue(auto.standardError.contains("no confidence threshold to take as the minimum confidence"), auto.standardError)
    }

    /// Where the frozen head is weak, a plain `train` says that `--fine-tune-auto` would try fine-tuning.
    func testAPlainTrainingHintsAtFineTuningWhereTheFrozenHeadIsWeak() throws {
        // The tiny set's pictures dealt alternately, in file order, into two new labels that each hold both kinds:
        // little to learn, held-out accuracy well below 80 %.
        let mixed = folder.appendingPathComponent("mixed"), source = dataset.appendingPathComponent("Training Data")
        let files = FileManager.default
        var index = 0
        for label in try files.contentsOfDirectory(atPath: source.path).sorted() {
            for name in try files.contentsOfDirectory(atPath: source.appendingPathComponent(label).path).sorted() {
                let target = mixed.appendingPathComponent("Training Data").appendingPathComponent(index % 2 == 0 ? "left" : "right")
                try files.createDirectory(at: target, withIntermediateDirectories: true)
                try files.copyItem(
                    at: source.appendingPathComponent(label).appendingPathComponent(name),
                    to: target.appendingPathComponent("\(index)-\(name)"))
                index += 1
            }
        }
        let reportPath = folder.appendingPathComponent("mixed.json").path
        let pagePath = folder.appendingPathComponent("mixed.html").path
        let train = try run([
            "train", mixed.path, "-o", folder.appendingPathComponent("mixed.wbmodel").path, "--html", pagePath,
            "--report", reportPath,
        ])
        XCTAssertEqual(train.status, 0, train.standardError)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        let accuracy = try XCTUnwrap((report["validation"] as? [String: Any])?["accuracy"] as? Double)
        XCTAssertLessThan(accuracy, 0.8, "labels dealt at random leave room")
        let hint = String(
            format: "hint: the frozen head's held-out accuracy is %.1f %%, below 80 %%, where fine-tuning has paid: "
                + "--fine-tune-auto tries it (minutes, not seconds)", accuracy * 100)
        XCTAssertTrue(train.standardOutput.contains(hint), train.standardOutput)
        // The report and the page keep the library's words, which name no option.
        let stored = String(
            format: "hint: the frozen head's held-out accuracy is %.1f %%, below 80 %%, where fine-tuning has paid: "
                + "the automatic choice tries it (minutes, not seconds)", accuracy * 100)
        XCTAssertEqual(report["fineTuningHint"] as? String, stored)
        XCTAssertNil(report["fineTuning"], "a hint, not a fine-tuning")
        let page = try String(contentsOfFile: pagePath, encoding: .utf8)
        XCTAssertTrue(page.contains("the automatic choice tries it (minutes, not seconds)"), "the page carries the hint too")
    }

    /// `--target-precision` stores a threshold; `classify --abstain` and `label --min-confidence auto` answer below it
    /// with "unknown" and the fallback label. A strong penalty keeps confidences well short of 1, and the stored
    /// threshold is then moved (with Python's safetensors) to the middle of them, so that both sides are exercised.
    func testTargetPrecisionThresholdDrivesAbstainAndAutoMinimumConfidence() throws {
        let model = folder.appendingPathComponent("Sure.wbmodel").path
        let train = try run(["train", dataset.path, "-o", model, "--l2", "10000", "--target-precision", "0.9", "--json"])
        XCTAssertEqual(train.status, 0, train.standardError)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(train.standardOutput.utf8)) as? [String: Any])
        let thresholds = try XCTUnwrap(report["thresholds"] as? [String: Any])
        XCTAssertEqual(thresholds["targetPrecision"] as? Double, 0.9)
        let chosen = try XCTUnwrap(thresholds["chosen"] as? Double, "cat vs espresso reaches 90 % precision")
        let inspect = try run(["inspect", model, "--json"])
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(inspect.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(summary["confidenceThreshold"] as? Double, chosen)

        let frames = dataset.appendingPathComponent("Training Data/cat").path
        let plain = try run(["classify", model, frames, "--json"])
        let confidences = try plain.standardOutput.split(separator: "\n").map {
            try XCTUnwrap((JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["confidence"] as? Double)
        }
        let threshold = (confidences.min()! + confidences.max()!) / 2
        XCTAssertLessThan(confidences.min()!, threshold - 1e-4, "confidences \(confidences) must differ")

        let strict = folder.appendingPathComponent("Strict.wbmodel").path
        let edit = Process()
        edit.executableURL = URL(fileURLWithPath: try ProjectPython.interpreter())
        edit.arguments = [
            "-c",
            """
            import sys
            from safetensors import safe_open
            from safetensors.numpy import load_file, save_file
            with safe_open(sys.argv[1], "np") as f: metadata = f.metadata()
            metadata["confidence_threshold"] = sys.argv[3]
            save_file(load_file(sys.argv[1]), sys.argv[2], metadata=metadata)
            """, model, strict, "\(threshold)",
        ]
        try edit.run()
        edit.waitUntilExit()
        XCTAssertEqual(edit.terminationStatus, 0)

        let classify = try run(["classify", strict, frames, "--abstain", "--json"])
        XCTAssertEqual(classify.status, 0, classify.standardError)
        let predictions = try classify.standardOutput.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(predictions.count, 6)
        var abstained = 0
        for prediction in predictions {
            let confidence = try XCTUnwrap(prediction["confidence"] as? Double)
            let sure = confidence >= threshold - 1e-6
            XCTAssertEqual(prediction["label"] as? String, sure ? "cat" : "unknown", "confidence \(confidence)")
            XCTAssertEqual(prediction["abstained"] as? Bool, !sure)
            XCTAssertEqual(prediction["topLabel"] as? String, "cat")
            if !sure { abstained += 1 }
        }
        XCTAssertTrue((1...5).contains(abstained), "some answered, some not: \(abstained) of 6 abstained")

        let label = try run(["label", strict, frames, "--min-confidence", "auto", "--fallback", "espresso", "--json"])
        XCTAssertEqual(label.status, 0, label.standardError)
        let movie = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(label.standardOutput.utf8)) as? [String: Any])
        let markers = try XCTUnwrap(movie["markers"] as? [String: String])
        for frame in try XCTUnwrap(movie["frames"] as? [[String: Any]]) {
            let second = Int(try XCTUnwrap(frame["second"] as? Double))
            let confidence = try XCTUnwrap(frame["confidence"] as? Double)
            XCTAssertEqual(
                markers[String(second)], Float(confidence) < Float(threshold) ? "espresso" : "cat",
                "second \(second), confidence \(confidence)")
        }
    }

    func testSameDataAndSeedGiveAByteIdenticalModelAndTheCacheServesTheSecondRun() throws {
        let first = folder.appendingPathComponent("a.wbmodel").path, second = folder.appendingPathComponent("b.wbmodel").path
        XCTAssertEqual(try run(["train", dataset.path, "-o", first]).status, 0)
        let cached = try FileManager.default.subpathsOfDirectory(atPath: folder.appendingPathComponent("cache").path)
        XCTAssertEqual(cached.filter { $0.hasSuffix(".feat") }.count, 16, "one cache entry per image")
        XCTAssertEqual(try run(["train", dataset.path, "-o", second]).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first)), try Data(contentsOf: URL(fileURLWithPath: second)))
        let uncached = folder.appendingPathComponent("c.wbmodel").path
        XCTAssertEqual(try run(["train", dataset.path, "-o", uncached, "--no-cache"]).status, 0)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: first)), try Data(contentsOf: URL(fileURLWithPath: uncached)),
            "cached features are the computed ones")
    }

    func testBadDatasetsFailWithOneLineAndWriteNothing() throws {
        let model = folder.appendingPathComponent("bad.wbmodel").path
        func expectFailure(_ arguments: [String], mentioning fragment: String, line: UInt = #line) throws {
            let outcome = try run(arguments, line: line)
            XCTAssertEqual(outcome.status, 1, "\(arguments): \(outcome.standardError)", line: line)
            let errors = outcome.errorLines.filter { $0.hasPrefix("workbench: ") }
            XCTAssertEqual(errors.count, 1, outcome.standardError, line: line)
            XCTAssertTrue(errors.first?.contains(fragment) ?? false, "\(errors) should mention \(fragment)", line: line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: model), "no model may be written", line: line)
        }
        try expectFailure(["train", folder.appendingPathComponent("missing").path, "-o", model], mentioning: "missing")

        let oneLabel = folder.appendingPathComponent("one-label")
        try FileManager.default.createDirectory(at: oneLabel.appendingPathComponent("cat"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: dataset.appendingPathComponent("Training Data/cat/1.jpg"),
            to: oneLabel.appendingPathComponent("cat/1.jpg"))
        try expectFailure(["train", oneLabel.path, "-o", model], mentioning: "fewer than two labels")

        let unreadable = folder.appendingPathComponent("unreadable")
        try FileManager.default.copyItem(at: dataset.appendingPathComponent("Training Data"), to: unreadable)
        let dog = unreadable.appendingPathComponent("dog")
        try FileManager.default.createDirectory(at: dog, withIntermediateDirectories: true)
        try Data("not a picture".utf8).write(to: dog.appendingPathComponent("1.jpg"))
        try expectFailure(["train", unreadable.path, "-o", model], mentioning: "dog")

        let unknownTestLabel = folder.appendingPathComponent("unknown-test")
        try FileManager.default.createDirectory(at: unknownTestLabel.appendingPathComponent("bird"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: dataset.appendingPathComponent("Training Data/cat/1.jpg"),
            to: unknownTestLabel.appendingPathComponent("bird/1.jpg"))
        try expectFailure(
            ["train", dataset.appendingPathComponent("Training Data").path, "--test", unknownTestLabel.path, "-o", model],
            mentioning: "bird")
        try expectFailure(
            ["train", dataset.path, "-o", folder.appendingPathComponent("no/such/folder/x.wbmodel").path],
            mentioning: "no/such/folder")

        let strict = try run(["train", unreadable.deletingLastPathComponent().appendingPathComponent("unreadable").path, "--strict", "-o", model])
        XCTAssertEqual(strict.status, 1)
    }

    func testCorruptOrForeignModelFilesAreRefusedByClassify() throws {
        let model = folder.appendingPathComponent("good.wbmodel").path
        XCTAssertEqual(try run(["train", dataset.path, "-o", model, "--validation-fraction", "0"]).status, 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: model))
        let image = dataset.appendingPathComponent("Testing Data/cat").path
        let cases: [(String, Data, String)] = [
            ("truncated.wbmodel", bytes.prefix(bytes.count / 2), "truncated.wbmodel: "),
            ("empty.wbmodel", Data(), "empty.wbmodel: "),
            ("text.wbmodel", Data("hello, I am not a model".utf8), "text.wbmodel: "),
            (
                "backbone.wbmodel",
                try Data(contentsOf: WorkbenchBinary.repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors")),
                "not a Workbench model"
            ),
        ]
        for (name, data, fragment) in cases {
            let path = folder.appendingPathComponent(name).path
            try data.write(to: URL(fileURLWithPath: path))
            let outcome = try run(["classify", path, image])
            XCTAssertEqual(outcome.status, 1, name)
            XCTAssertEqual(outcome.errorLines.count, 1, "\(name): \(outcome.standardError)")
            XCTAssertTrue(outcome.standardError.contains(fragment), "\(name): \(outcome.standardError)")
            XCTAssertTrue(outcome.standardOutput.isEmpty, name)
        }
        // A preprocessing this build cannot perform at the backbone's input size: one line naming file and field.
        let resized = folder.appendingPathComponent("resized.wbmodel").path
        try editModel(
            model, into: resized,
            script: """
                recipe = json.loads(metadata["preprocessing"]); recipe["inputSide"] = 256
                metadata["preprocessing"] = json.dumps(recipe)
                """)
        for arguments in [
            ["classify", resized, image], ["export", resized, "--format", "onnx", "-o", folder.appendingPathComponent("resized.onnx").path],
        ] {
            let outcome = try run(arguments)
            XCTAssertEqual(outcome.status, 1, arguments[0])
            XCTAssertEqual(
                outcome.errorLines, ["workbench: \(resized): preprocessing 'inputSide' is 256; the backbone takes 224"],
                arguments[0])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("resized.onnx").path))
        let missing = try run(["classify", folder.appendingPathComponent("absent.wbmodel").path, image])
        XCTAssertEqual(missing.status, 1)
        let unknownLabel = try run(["classify", model, image, "--label", "dog"])
        XCTAssertEqual(unknownLabel.status, 1)
        XCTAssertTrue(unknownLabel.standardError.contains("'dog'"), unknownLabel.standardError)
    }
}
