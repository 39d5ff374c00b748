import DetectorConversion
import XCTest

/// The anchor generator's layout on a hand-computed case (the comparison with the anchors TensorFlow computes from
/// the graph is in DetectionTests, on the converted file).
final class AnchorGeneratorParametersTests: XCTestCase {
    func testAnchorsGoRowByRowColumnByColumnKindByKind() {
        let parameters = AnchorGeneratorParameters(layers: [
            .init(gridHeight: 2, gridWidth: 2, scales: [0.5, 0.25], aspectRatios: [1, 4])
        ])
        let anchors = parameters.anchors()
        XCTAssertEqual(anchors.count, 2 * 2 * 2 * 4)
        // Row 0, column 1, kind 1: centre (0.25, 0.75), height 0.25/√4, width 0.25·√4.
        let offset = ((0 * 2 + 1) * 2 + 1) * 4
        XCTAssertEqual(Array(anchors[offset..<offset + 4]), [0.25, 0.75, 0.125, 0.5])
        // Row 1, column 0, kind 0: centre (0.75, 0.25), a square of side 0.5.
        let first = ((1 * 2 + 0) * 2 + 0) * 4
        XCTAssertEqual(Array(anchors[first..<first + 4]), [0.75, 0.25, 0.5, 0.5])
    }
}
