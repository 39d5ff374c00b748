import FileFormats
import XCTest

/// The one strict comparison of a weights file's tensors with the expected names and shapes.
final class TensorMismatchTests: XCTestCase {
    private func tensor(_ shape: [Int]) -> SafetensorsFile.Tensor {
        SafetensorsFile.Tensor(shape: shape, values: [Float](repeating: 0, count: shape.reduce(1, *)))
    }

    func testExactTensorsAreNoMismatch() {
        XCTAssertNil(TensorMismatch(tensors: ["a": tensor([2, 1]), "b": tensor([3])], expected: ["a": [2, 1], "b": [3]]))
    }

    func testEveryMissingUnusedAndWrongShapeTensorIsNamed() throws {
        let mismatch = try XCTUnwrap(
            TensorMismatch(
                tensors: ["a": tensor([1, 2]), "c": tensor([1]), "z": tensor([1])],
                expected: ["a": [2, 1], "b": [3], "d": [4]]))
        XCTAssertEqual(mismatch.missing, ["b", "d"])
        XCTAssertEqual(mismatch.unused, ["c", "z"])
        XCTAssertEqual(mismatch.wrongShapes, [.init(name: "a", shape: [1, 2], expected: [2, 1])])
        XCTAssertEqual(mismatch.summary(), "missing tensors: b, d; unused tensors: c, z; wrong shapes: a is [1, 2], expected [2, 1]")
    }

    func testLongListsAreCutShort() throws {
        let names = (0..<11).map { "t\($0)" }
        let mismatch = try XCTUnwrap(TensorMismatch(tensors: [:], expected: Dictionary(uniqueKeysWithValues: names.map { ($0, [1]) })))
        XCTAssertEqual(mismatch.summary(limit: 3), "missing tensors: t0, t1, t10 and 8 more")
    }
}
