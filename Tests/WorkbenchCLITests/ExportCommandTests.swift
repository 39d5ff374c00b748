import Foundation
import XCTest
import _TestSupport

/// `workbench export` through the release binary, proven with onnxruntime against `workbench classify --json`.
final class ExportCommandTests: XCTestCase {
    func testExportedONNXPredictsWhatClassifyPredicts() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = WorkbenchBinary.repositoryRoot()
        let environment = ["WORKBENCH_CACHE": folder.appendingPathComponent("cache").path]
        func python(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try ProjectPython.interpreter())
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }

        // 60 sample images, and the same as exact 224 × 224 network inputs (cropped and resized by Pillow),
        // plus the reference's two golden inputs.
        let dataset = folder.appendingPathComponent("tiny")
        XCTAssertEqual(
            try python([
                root.appendingPathComponent("scripts/fixtures/make-tiny-dataset.py").path,
                root.appendingPathComponent("Tests/ModelsTests/Fixtures").path, dataset.path,
                "--per-label", "30",
            ]).status, 0)
        let inputs = folder.appendingPathComponent("inputs")
        let resize = """
            import pathlib, sys
            from PIL import Image
            out = pathlib.Path(sys.argv[2]); out.mkdir()
            for index, path in enumerate(sorted(pathlib.Path(sys.argv[1]).rglob("*.*"))):
                image = Image.open(path).convert("RGB"); w, h = image.size; c = int(224 / 256 * min(w, h))
                top, left = ((h - c) + 1) // 2, ((w - c) + 1) // 2
                image.crop((left, top, left + c, top + c)).resize((224, 224), Image.BICUBIC).save(out / f"{index:03d}.png")
            """
        XCTAssertEqual(try python(["-c", resize, dataset.path, inputs.path]).status, 0)
        for name in ["chelsea_224.png", "coffee_224.png"] {
            try FileManager.default.copyItem(
                at: root.appendingPathComponent("Tests/ModelsTests/Fixtures/\(name)"),
                to: inputs.appendingPathComponent(name))
        }

        let model = folder.appendingPathComponent("tiny.wbmodel").path
        XCTAssertEqual(try WorkbenchBinary.run(["train", dataset.path, "-o", model], environment: environment).status, 0)
        let classify = try WorkbenchBinary.run(["classify", model, inputs.path, "--json"], environment: environment)
        XCTAssertEqual(classify.status, 0, classify.standardError)
        let predictions = folder.appendingPathComponent("predictions.jsonl")
        try classify.standardOutput.write(to: predictions, atomically: true, encoding: .utf8)
        XCTAssertEqual(classify.standardOutput.split(separator: "\n").count, 62)

        let onnx = folder.appendingPathComponent("tiny.onnx").path
        let export = try WorkbenchBinary.run(["export", model, "--format", "onnx", "-o", onnx])
        XCTAssertEqual(export.status, 0, export.standardError)
        let check = try python([root.appendingPathComponent("scripts/check/check-onnx-against-classify.py").path, onnx, predictions.path])
        XCTAssertEqual(check.status, 0, "onnxruntime disagrees with workbench classify: \(check.output)")
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(check.output.utf8)) as? [String: Any])
        XCTAssertEqual(result["images"] as? Int, 62)
        XCTAssertEqual(result["top1_mismatches"] as? Int, 0)
        XCTAssertLessThanOrEqual(result["max_abs_difference"] as? Double ?? 1, 1e-4)

        let coreml = try WorkbenchBinary.run(["export", model, "--format", "coreml"])
        XCTAssertEqual(coreml.status, 0, coreml.standardError)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("tiny.mlmodel").path),
            "the default output is the model's name with .mlmodel")

        let unwritable = try WorkbenchBinary.run(["export", model, "--format", "onnx", "-o", "/no/such/folder/tiny.onnx"])
        XCTAssertEqual(unwritable.status, 1)
        XCTAssertEqual(unwritable.errorLines, ["workbench: /no/such/folder/tiny.onnx: cannot write: folder /no/such/folder does not exist"])
    }

    func testBadExportsFailWithOneLineAndLeaveNothing() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let corrupt = folder.appendingPathComponent("corrupt.wbmodel")
        try Data("definitely not a model".utf8).write(to: corrupt)
        let outcome = try WorkbenchBinary.run(["export", corrupt.path, "--format", "onnx"])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.errorLines.count, 1, outcome.standardError)
        XCTAssertTrue(outcome.standardError.hasPrefix("workbench: \(corrupt.path): "), outcome.standardError)
        let unknown = try WorkbenchBinary.run(["export", corrupt.path, "--format", "tflite"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.standardError.contains("'tflite'"), unknown.standardError)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["corrupt.wbmodel"], "no partial file")
    }
}
