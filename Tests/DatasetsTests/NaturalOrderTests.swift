import Datasets
import XCTest

final class NaturalOrderTests: XCTestCase {
    func testNumbersCompareByValue() {
        XCTAssertEqual(NaturalOrder.sorted(["10", "2", "1", "100", "20"]), ["1", "2", "10", "20", "100"])
        XCTAssertEqual(NaturalOrder.sorted(["img10.png", "img2.png", "img1.png"]), ["img1.png", "img2.png", "img10.png"])
        XCTAssertEqual(
            NaturalOrder.sorted(["a99999999999999999999999", "a100000000000000000000000"]),
            ["a99999999999999999999999", "a100000000000000000000000"], "digit runs longer than Int")
    }

    func testCaseIsIgnoredThenBreaksTies() {
        XCTAssertEqual(NaturalOrder.sorted(["banana", "Apple", "cherry"]), ["Apple", "banana", "cherry"])
        // Equal ignoring case: the code-point order decides, so the result does not depend on the input order.
        XCTAssertEqual(NaturalOrder.sorted(["cat", "Cat", "CAT"]), ["CAT", "Cat", "cat"])
        XCTAssertEqual(NaturalOrder.sorted(["Cat", "CAT", "cat"]), ["CAT", "Cat", "cat"])
        XCTAssertEqual(NaturalOrder.sorted(["01", "1", "001"]), ["001", "01", "1"])
    }

    func testPathsCompareComponentByComponent() {
        let paths = [["b.jpg"], ["a", "z.jpg"], ["a", "10.jpg"], ["a", "2.jpg"], ["a.jpg"]]
        XCTAssertEqual(
            paths.sorted(by: NaturalOrder.pathsInIncreasingOrder),
            [["a", "2.jpg"], ["a", "10.jpg"], ["a", "z.jpg"], ["a.jpg"], ["b.jpg"]])
    }
}
