import Foundation
import TensorCore
import XCTest

final class OrderedPipelineTests: XCTestCase {
    func testDeliversEveryResultInOrderWhateverTheFinishingOrder() {
        var delivered: [Int] = []
        OrderedPipeline.run(
            count: 200, threads: 4, window: 8,
            work: { index in
                // Later jobs often finish first.
                usleep(UInt32((200 - index) % 7) * 100)
                return index * index
            },
            deliver: { index, square in
                XCTAssertEqual(square, index * index)
                delivered.append(index)
            })
        XCTAssertEqual(delivered, Array(0..<200))
    }

    func testNothingToDo() {
        OrderedPipeline.run(count: 0, threads: 2, work: { $0 }, deliver: { _, _ in XCTFail("no job expected") })
    }
}
