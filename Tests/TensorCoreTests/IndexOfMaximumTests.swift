import TensorCore
import XCTest

final class IndexOfMaximumTests: XCTestCase {
    func testLargestWinsAndTheFirstOfEqualValues() {
        XCTAssertEqual([0.1, 0.7, 0.2].indexOfMaximum, 1)
        XCTAssertEqual(([0.4, 0.4, 0.2] as [Float]).indexOfMaximum, 0, "ties go to the first label (model order)")
        XCTAssertEqual(([-3, -1, -1, -2] as [Double]).indexOfMaximum, 1)
    }

    func testNaNNeverWins() {
        XCTAssertEqual(([.nan, 0.2, 0.5] as [Float]).indexOfMaximum, 2)
        XCTAssertEqual(([0.2, .nan, 0.1] as [Float]).indexOfMaximum, 0)
    }

    func testPositionsInASliceCountFromItsStart() {
        let rows: [Float] = [0.9, 0.1, 0.0, /* row 1 */ 0.2, 0.3, 0.5]
        XCTAssertEqual(rows[3..<6].indexOfMaximum, 2)
        XCTAssertEqual(rows[0..<3].indexOfMaximum, 0)
    }
}
