import FileFormats
import XCTest

/// `WholeNumber`: reals from outside made whole only when they fit, never a trap.
final class WholeNumberTests: XCTestCase {
    /// Issue 45, defect 3: reals from outside become whole numbers only when they fit.
    func testWholeNumbersFromRealsAreCheckedFirst() {
        XCTAssertEqual(WholeNumber.rounding(2.5, .up), 3)
        XCTAssertNil(WholeNumber.rounding(1e18 * 25))
        XCTAssertNil(WholeNumber.rounding(.nan))
        XCTAssertNil(WholeNumber.rounding(-.infinity))
        XCTAssertNil(WholeNumber.rounding(0x1p63), "2^63 is one past Int.max")
        XCTAssertEqual(WholeNumber.rounding(-0x1p63), Int.min)
        XCTAssertEqual(WholeNumber.clamped(1e300, .up, to: 0...50), 50)
        XCTAssertEqual(WholeNumber.clamped(-1e300, .up, to: 0...50), 0)
        XCTAssertEqual(WholeNumber.clamped(7.2, .up, to: 0...50), 8)
        XCTAssertEqual(WholeNumber.clamped(.infinity, to: 0...Int.max), Int.max)
        XCTAssertNil(WholeNumber.clamped(.nan, to: 0...50))
        XCTAssertEqual(WholeNumber.saturating(1e308), Int.max)
        XCTAssertEqual(WholeNumber.saturating(-1e308, .down), Int.min)
        XCTAssertEqual(WholeNumber.saturating(.nan), 0)
        XCTAssertEqual(WholeNumber.saturating(-3.5, .down), -4)
    }
}
