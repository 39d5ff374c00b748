import ModelFiles
import XCTest

/// The detector's input-side rule, stated once.
final class DetectorInputSideTests: XCTestCase {
    func testSidesAreMultiplesOf32From64To1024() {
        XCTAssertEqual((0...2048).filter(DetectorInputSide.isValid), Array(stride(from: 64, through: 1024, by: 32)))
        XCTAssertEqual(DetectorInputSide.requirement, "a multiple of 32 from 64 to 1024")
    }
}
