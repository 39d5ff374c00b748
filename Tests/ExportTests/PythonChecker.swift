import Foundation
import XCTest
import _TestSupport

/// Runs the checked-in Python checkers (`scripts/check/check-*-export.py`) with the project's Python (`.venv/`, made by
/// scripts/setup.sh). When it cannot import onnx, onnxruntime, coremltools and numpy, the test fails with the fix
/// (it never skips).
enum PythonChecker {
    /// Python modules the checkers import.
    static let modules = ["numpy", "onnx", "onnxruntime", "coremltools"]

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Whether the modules import, computed once per test process.
    private static let availability: Result<Void, Failure> = {
        do {
            let probe = try run(["-c", "import " + modules.joined(separator: ", ")])
            guard probe.status == 0 else {
                return .failure(
                    Failure(
                        description: "\(ProjectPython.path) cannot import \(modules.joined(separator: ", ")) "
                            + "(run scripts/setup.sh): \(probe.errors)"))
            }
            return .success(())
        } catch {
            return .failure(Failure(description: "cannot run \(ProjectPython.path) (run scripts/setup.sh): \(error)"))
        }
    }()

    /// Runs `scripts/check/<script> model result images…` and returns the JSON object it wrote.
    static func check(script: String, model: String, images: [String], folder: URL) throws -> [String: Any] {
        try availability.get()
        let scriptPath = ExportFixtures.repositoryRoot.appendingPathComponent("scripts/check/\(script)").path
        let resultPath = folder.appendingPathComponent("\(script).json").path
        let outcome = try run([scriptPath, model, resultPath] + images)
        guard outcome.status == 0 else {
            throw Failure(description: "\(script) exited with \(outcome.status): \(outcome.errors)")
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: resultPath))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure(description: "\(script) wrote something other than a JSON object")
        }
        return object
    }

    /// `probabilities` (or another key) of a checker's result as float vectors.
    static func probabilities(_ result: [String: Any], key: String = "probabilities") throws -> [[Float]] {
        guard let rows = result[key] as? [[Double]] else {
            throw Failure(description: "result has no `\(key)` array of arrays")
        }
        return rows.map { $0.map(Float.init) }
    }

    private static func run(_ arguments: [String]) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ProjectPython.path)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Read before waiting so a chatty stderr cannot fill the pipe and block the child.
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = text.split(separator: "\n").suffix(5).joined(separator: " | ")
        return (process.terminationStatus, lines)
    }
}
