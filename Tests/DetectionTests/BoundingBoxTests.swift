import XCTest
import Detection

final class BoundingBoxTests: XCTestCase {
    func testIntersectionOverUnionOfHandWorkedBoxes() {
        let a = BoundingBox(left: 0, top: 0, right: 10, bottom: 10)
        let b = BoundingBox(left: 5, top: 0, right: 15, bottom: 10)
        // Overlap 5 × 10 = 50; union 100 + 100 − 50 = 150.
        XCTAssertEqual(a.intersectionOverUnion(b), 50.0 / 150.0, accuracy: 1e-12)
        XCTAssertEqual(a.intersectionOverUnion(a), 1)
        XCTAssertEqual(a.intersectionOverUnion(BoundingBox(left: 20, top: 20, right: 30, bottom: 30)), 0)
        XCTAssertEqual(a.intersectionOverUnion(BoundingBox(x: 5, y: 5, width: 0, height: 0)), 0)
    }

    func testEdgesAndCentreAgree() {
        let box = BoundingBox(x: 12, y: 20, width: 8, height: 6)
        XCTAssertEqual([box.left, box.top, box.right, box.bottom], [8, 17, 16, 23])
        XCTAssertEqual(BoundingBox(left: 8, top: 17, right: 16, bottom: 23), box)
    }
}
