import Foundation
import XCTest
import _TestSupport

/// `workbench export` of a trained detector through the release binary, proven against `workbench detect --model
/// --json`: the ONNX file with onnxruntime by `scripts/check/check-onnx-against-detect.py`, the Core ML pipeline by
/// `scripts/check/check-coreml-export.py --detect`'s numpy interpreter (both prepare pictures with docs/export.md's own
/// snippet). The detector is trained here on a small synthetic set at a 128-px input (seconds).
final class DetectorExportCommandTests: XCTestCase {
    func testExportsFindWhatDetectFinds() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = WorkbenchBinary.repositoryRoot()
        let data = folder.appendingPathComponent("shapes")
        try SyntheticDetectionDataset.write(to: data, count: 16, side: 128, seed: 27)
        let model = folder.appendingPathComponent("Shapes.wbmodel").path
        let environment = ["WORKBENCH_CACHE": folder.appendingPathComponent("cache").path]
        let trained = try WorkbenchBinary.run(
            [
                "train", data.path, "-o", model, "--input-side", "128", "--epochs", "6",
                "--crops", "0", "--threads", "2", "--no-html",
            ], environment: environment)
        XCTAssertEqual(trained.status, 0, trained.standardError)

        // Pictures of other sizes and a transparent one: a wide pair side by side (stretched to the square), a tall
        // crop, and a picture whose left third is transparent (composited onto white first).
        let python = try ProjectPython.interpreter()
        let variants = """
            import sys
            from PIL import Image
            folder = sys.argv[1]
            a, b = (Image.open(f"{folder}/picture-{i:03d}.png").convert("RGB") for i in (0, 1))
            wide = Image.new("RGB", (256, 128)); wide.paste(a, (0, 0)); wide.paste(b, (128, 0)); wide.save(f"{folder}/wide.png")
            b.crop((20, 0, 100, 128)).save(f"{folder}/tall.png")
            clear = a.convert("RGBA"); clear.putalpha(Image.new("L", (128, 128), 255)); clear.paste((0, 0, 0, 0), (0, 0, 42, 128))
            clear.save(f"{folder}/transparent.png")
            """
        let made = try WorkbenchBinary.runProcess(python, ["-c", variants, data.path], environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(made.status, 0, made.standardError)
        let pictures = [
            "picture-000.png", "picture-001.png", "picture-002.png", "picture-003.png", "wide.png", "tall.png",
            "transparent.png",
        ].map { data.appendingPathComponent($0).path }

        // A low minimum score, so that many peaks are compared (their order, the ties, the 100-box cap).
        let detected = try WorkbenchBinary.run(
            ["detect"] + pictures + [
                "--model", model, "--json", "--threads", "2",
                "--min-score", "0.05",
            ])
        XCTAssertEqual(detected.status, 0, detected.standardError)
        let detections = folder.appendingPathComponent("detections.json")
        try detected.standardOutput.write(to: detections, atomically: true, encoding: .utf8)

        let onnx = folder.appendingPathComponent("Shapes.onnx").path
        let export = try WorkbenchBinary.run(["export", model, "--format", "onnx"])
        XCTAssertEqual(export.status, 0, export.standardError)
        XCTAssertEqual(export.standardOutput, "ONNX model written to \(onnx)\n", "the default output is the model's name with .onnx")
        let check = try WorkbenchBinary.runProcess(
            python,
            [
                root.appendingPathComponent("scripts/check/check-onnx-against-detect.py").path,
                onnx, detections.path, "--min-score", "0.05",
            ], environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(check.status, 0, "onnxruntime disagrees with workbench detect: \(check.standardError)")
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(check.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(summary["pictures"] as? Int, pictures.count)
        let boxes = try XCTUnwrap(summary["boxes"] as? Int)
        XCTAssertGreaterThanOrEqual(boxes, 3 * pictures.count, "many peaks above 0.05: \(detected.standardOutput)")
        XCTAssertGreaterThanOrEqual(summary["matched"] as? Int ?? 0, boxes - 1, "at most one borderline box: \(summary)")
        print("detector ONNX export against detect: \(check.standardOutput)")

        // Core ML: the pipeline (network, then per-label suppression) evaluated by the numpy interpreter on the same
        // pictures; its kept boxes are detect's, but for boxes suppressed by a better overlapping one of their label.
        let mlmodel = folder.appendingPathComponent("Shapes.mlmodel").path
        let coreml = try WorkbenchBinary.run(["export", model, "--format", "coreml"])
        XCTAssertEqual(coreml.status, 0, coreml.standardError)
        XCTAssertEqual(coreml.standardOutput, "Core ML model written to \(mlmodel)\n")
        let pipeline = try WorkbenchBinary.runProcess(
            python,
            [
                root.appendingPathComponent("scripts/check/check-coreml-export.py").path,
                mlmodel, "--detect", detections.path, "--min-score", "0.05",
            ],
            environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(pipeline.status, 0, "the Core ML pipeline disagrees with workbench detect: \(pipeline.standardError)")
        let agreement = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(pipeline.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(agreement["pictures"] as? Int, pictures.count)
        XCTAssertGreaterThanOrEqual(agreement["matched"] as? Int ?? 0, boxes - 1 - (agreement["suppressed"] as? Int ?? 0), "\(agreement)")
        print("detector Core ML export against detect: \(pipeline.standardOutput)")

        // Test-time augmentation is a classifier's: refused in one line, nothing written.
        let tta = try WorkbenchBinary.run(["export", model, "--format", "onnx", "--tta", "-o", folder.appendingPathComponent("t.onnx").path])
        XCTAssertEqual(tta.status, 1)
        XCTAssertEqual(
            tta.errorLines,
            ["workbench: \(model): is a detector: its exports do not carry --tta's mirror averaging (detect --tta and evaluate --tta do)"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("t.onnx").path))
    }
}
