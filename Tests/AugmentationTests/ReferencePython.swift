import Foundation
import XCTest
import _TestSupport

/// Runs a short numpy/scipy/Pillow script of the project's Python on float32 or uint8 files: the independent
/// reference for the transforms that resample.
enum ReferencePython {
    /// Writes `inputs` (name → raw bytes) to a temporary folder, runs `script` there with the folder as its working
    /// directory, and returns the bytes of `output`.
    static func run(
        script: String, inputs: [String: Data], output: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Data {
        let python = try ProjectPython.interpreter(file: file, line: line)
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, data) in inputs { try data.write(to: folder.appendingPathComponent(name)) }
        let outcome = try WorkbenchBinary.runProcess(
            python, ["-c", script], environment: ProcessInfo.processInfo.environment,
            workingDirectory: folder)
        XCTAssertEqual(outcome.status, 0, "python failed: \(outcome.standardError)", file: file, line: line)
        return try Data(contentsOf: folder.appendingPathComponent(output))
    }

    static func data(_ values: [Float]) -> Data { values.withUnsafeBufferPointer { Data(buffer: $0) } }

    static func floats(_ data: Data) -> [Float] {
        data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

/// Test images with every value used.
enum TestImages {
    /// A float image `[side, side, 3]` with values uniform in 0...255.
    static func randomFloats(side: Int, seed: UInt64) -> [Float] {
        var generator = SeededGenerator(seed: seed)
        return generator.floats(side * side * 3, in: 0...255)
    }

    /// An 8-bit image with smooth structure plus a little randomness, so resampling errors show.
    static func pattern(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let base = (y * width + x) * 3
                pixels[base] = UInt8((x * 255) / max(width - 1, 1))
                pixels[base + 1] = UInt8((y * 255) / max(height - 1, 1))
                pixels[base + 2] = UInt8.random(in: 0...255, using: &generator)
            }
        }
        return pixels
    }
}
