import XCTest

final class LayersPlaceholderTests: XCTestCase {
    func testModuleBuilds() { XCTAssertTrue(true) }
}
