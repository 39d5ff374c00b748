import Foundation
import ModelFiles
import XCTest
import _TestSupport

/// The file must open in Python's `safetensors` package: the independent reference for the container format.
final class PythonCompatibilityTests: XCTestCase {
    private static let script = """
        import json, sys
        from safetensors import safe_open
        from safetensors.numpy import load_file
        path = sys.argv[1]
        tensors = load_file(path)
        with safe_open(path, framework="numpy") as handle:
            metadata = handle.metadata()
        print(json.dumps({
            "metadata": metadata,
            "shapes": {name: list(value.shape) for name, value in tensors.items()},
            "dtypes": sorted({str(value.dtype) for value in tensors.values()}),
            "values": {name: [float(x) for x in value.reshape(-1)] for name, value in tensors.items()},
        }))
        """

    func testPythonSafetensorsReadsTheFile() throws {
        let folder = try makeTemporaryFolder(self)
        let path = folder + "/m.wbmodel"
        let model = sampleModel()
        try model.write(path: path)

        let output = try runPython(arguments: ["-c", Self.script, path])
        let report = try XCTUnwrap(
            JSONSerialization.jsonObject(with: output) as? [String: Any], "python printed: \(String(decoding: output, as: UTF8.self))")
        let metadata = try XCTUnwrap(report["metadata"] as? [String: String])
        XCTAssertEqual(metadata["format"], "workbench-model")
        XCTAssertEqual(metadata["format_version"], "6")
        XCTAssertEqual(metadata["temperature"], "1.25")
        XCTAssertEqual(metadata["backbone"], "efficientnet-lite0")
        XCTAssertEqual(metadata["created"], model.creationDate)
        XCTAssertEqual(metadata["workbench_version"], model.workbenchVersion)
        let labelsText = try XCTUnwrap(metadata["labels"])
        XCTAssertEqual(try JSONDecoder().decode([String].self, from: Data(labelsText.utf8)), model.labels)
        let reportText = try XCTUnwrap(metadata["training_report"])
        let trainingReport = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(reportText.utf8)) as? [String: Any])
        XCTAssertEqual(trainingReport["epochs"] as? Int, 3)

        let shapes = try XCTUnwrap(report["shapes"] as? [String: [Int]])
        XCTAssertEqual(
            shapes,
            [
                "backbone.stem.conv.weight": [2, 3, 1, 1], "backbone.stem.bn.bias": [2],
                "head.feature_mean": [4], "head.feature_scale": [4], "head.weight": [3, 4], "head.bias": [3],
            ])
        XCTAssertEqual(report["dtypes"] as? [String], ["float32"])
        let values = try XCTUnwrap(report["values"] as? [String: [Double]])
        XCTAssertEqual(values["head.weight"]?.map { Float($0) }, model.head.weights)
        XCTAssertEqual(values["head.bias"]?.map { Float($0) }, model.head.bias)
        XCTAssertEqual(values["backbone.stem.conv.weight"]?.map { Float($0) }, model.backboneTensors["stem.conv.weight"]?.values)
    }

    /// Runs the project's Python (`.venv/`) and returns its standard output; a missing interpreter or package is a failure, never a skip.
    private func runPython(arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ProjectPython.interpreter(file: file, line: line))
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        // Standard error goes to a file so neither pipe can fill up while the other is being read.
        let errorPath = try makeTemporaryFolder(self) + "/stderr.txt"
        XCTAssertTrue(FileManager.default.createFile(atPath: errorPath, contents: nil))
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        do {
            try process.run()
        } catch {
            XCTFail(
                "cannot start \(ProjectPython.path) (\(error)): run scripts/setup.sh to install Python with safetensors and numpy", file: file,
                line: line)
            throw error
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            let hint =
                message.contains("No module named") || process.terminationStatus == 127
                ? "Python or its safetensors/numpy packages are missing: run scripts/setup.sh. " : ""
            XCTFail("\(hint)\(ProjectPython.path) exited with \(process.terminationStatus): \(message)", file: file, line: line)
            throw CocoaError(.executableLoad)
        }
        return outputData
    }
}
