import XCTest

final class DatasetsPlaceholderTests: XCTestCase {
    func testModuleBuilds() { XCTAssertTrue(true) }
}
