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
        .appendingPathComponent("labeling-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

/// Asserts that `body` throws a `LabelingError` of `kind` (`assertKindedError`).
@discardableResult
func assertLabelingError<T>(
    _ kind: LabelingFailure, file: StaticString = #filePath, line: UInt = #line,
    _ body: () throws -> T
) -> LabelingError? {
    assertKindedError(kind, file: file, line: line, body)
}

/// A labeled frame with given probabilities; the label is the arg-max, as MovieLabeler makes it.
func labeledFrame(_ second: Double, _ labels: [String], _ probabilities: [Float]) -> LabeledFrame {
    let best = probabilities.indexOfMaximum
    return LabeledFrame(
        index: Int(second), second: second, label: labels[best], confidence: probabilities[best],
        probabilities: probabilities)
}
