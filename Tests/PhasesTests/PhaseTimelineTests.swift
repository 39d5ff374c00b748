import Foundation
import XCTest
import Phases

final class PhaseTimelineTests: XCTestCase {
    func testReadsTheDocumentedShapeWrittenByHand() throws {
        let text = #"{"video": "a.mp4", "order": ["address", "impact"], "phases": [{"label": "address", "start": 0, "end": 1.5}, {"label": "impact", "start": 1.5, "end": 2, "confidence": 0.9}]}"#
        let timeline = try JSONDecoder().decode(PhaseTimeline.self, from: Data(text.utf8))
        XCTAssertEqual(timeline.order, ["address", "impact"])
        XCTAssertEqual(timeline.phases.map(\.start), [0, 1.5])
        XCTAssertNil(timeline.phases[0].confidence)
        XCTAssertEqual(timeline.phases[1].confidence, 0.9)
    }
}
