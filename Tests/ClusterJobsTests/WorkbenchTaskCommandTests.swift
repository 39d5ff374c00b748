import XCTest
@testable import ClusterJobs

/// A sharded label task's command line carries the marker and test-time options as `workbench label` takes them,
/// leaving defaults (and the model's own test-time default) out.
final class WorkbenchTaskCommandTests: XCTestCase {
    private func options(testTimeAugmentation: Bool?) -> WorkbenchTaskCommand.LabelOptions {
        .init(
            every: 1, framesPerSecond: nil, minimumConfidence: 0, fallbackLabel: nil, smoothing: 1, changesOnly: false,
            testTimeAugmentation: testTimeAugmentation)
    }

    func testTestTimeAugmentationIsPassedOnOnlyWhenChosen() {
        XCTAssertEqual(options(testTimeAugmentation: nil).arguments, [])
        XCTAssertEqual(options(testTimeAugmentation: true).arguments, ["--tta"])
        XCTAssertEqual(options(testTimeAugmentation: false).arguments, ["--no-tta"])
    }
}
