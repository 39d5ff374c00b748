import Foundation
import XCTest

/// The project's Python: the interpreter of the virtual environment `scripts/setup.sh` creates in `.venv/` and
/// fills with numpy, Pillow, safetensors, scikit-learn, onnx, onnxruntime and coremltools. Tests that run Python
/// use it, never whatever `python3` is on the PATH (Debian's own refuses `pip install`, and lacks the packages).
public enum ProjectPython {
    /// `<repository>/.venv/bin/python3`.
    public static var path: String {
        WorkbenchBinary.repositoryRoot().appendingPathComponent(".venv/bin/python3").path
    }

    /// The interpreter's path; fails (never skips) with the fix when set-up has not made it.
    public static func interpreter(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            XCTFail("\(path) not found: run scripts/setup.sh (it creates the project's Python environment)", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }
}
