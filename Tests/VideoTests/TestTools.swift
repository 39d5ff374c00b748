import Foundation
import ImageCodecs
@testable import Labeling
@testable import Video
import TensorCore
import XCTest
import _TestSupport

/// A fresh temporary folder, removed when the test ends.
func makeTemporaryFolder(_ testCase: XCTestCase) throws -> String {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("video-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

/// ffmpeg/ffprobe on PATH; fails the test (never skips) when they are missing.
func requireTools(file: StaticString = #filePath, line: UInt = #line) throws -> ExternalTools {
    do {
        return try ExternalTools.locate(for: "tests")
    } catch {
        XCTFail("\(error) — the Video tests need ffmpeg", file: file, line: line)
        throw error
    }
}

/// Runs ffmpeg to make a test input; fails the test with ffmpeg's stderr when it does not succeed.
func ffmpeg(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
    let tools = try requireTools(file: file, line: line)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tools.ffmpeg)
    process.arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let message = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    if process.terminationStatus != 0 {
        let text = String(decoding: message, as: UTF8.self)
        XCTFail("ffmpeg \(arguments.joined(separator: " ")) failed: \(text)", file: file, line: line)
        throw VideoError(.toolFailed, path: "test", reason: text)
    }
}

/// Asserts that `body` throws a `VideoError` of `kind` (`assertKindedError`).
@discardableResult
func assertVideoError<T>(
    _ kind: VideoFailure, file: StaticString = #filePath, line: UInt = #line,
    _ body: () throws -> T
) -> VideoError? {
    assertKindedError(kind, file: file, line: line, body)
}

/// The network's decoding (EfficientNet-Lite0's 224-pixel crop of 224/256 of the shorter side), as the labeling
/// workflow passes it; Labeling itself takes it as a parameter.
let networkOptions = DecodeOptions(cropAndResize: CropAndResize(outputSide: 224, padding: 32))
