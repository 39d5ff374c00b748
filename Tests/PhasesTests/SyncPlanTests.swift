import Phases
import XCTest
import _TestSupport

/// The plan's arithmetic, against the rule written out by hand: every phase lasts the longest input's share, the
/// others hold; and its refusals.
final class SyncPlanTests: XCTestCase {
    private let order = ["address", "backswing", "impact", "finish"]

    private func input(
        _ name: String, _ bounds: [(Double, Double)], rate: Double = 25, frames: Int = 1000,
        order: [String]? = nil, labels: [String]? = nil
    ) -> SyncPlan.Input {
        let order = order ?? self.order
        let labels = labels ?? order
        let timeline = PhaseTimeline(
            video: name, order: order,
            phases: zip(labels, bounds).map {
                PhaseTimeline.Phase(label: $0.0, start: $0.1.0, end: $0.1.1)
            })
        return SyncPlan.Input(source: name + ".json", timeline: timeline, framesPerSecond: rate, frameCount: frames)
    }

    func testEveryPhaseLastsTheLongestInputsShareAndTheOthersHold() throws {
        let plan = try SyncPlan(inputs: [
            input("a", [(0.2, 0.8), (0.8, 1.6), (1.6, 2.0), (2.0, 2.2)]),
            input("b", [(0.4, 0.8), (0.8, 2.0), (2.0, 2.4), (2.4, 3.0)]),
        ])
        XCTAssertEqual(plan.phases.map(\.label), order)
        XCTAssertEqual(plan.phases.map(\.outputFrameCount), [15, 30, 10, 15])
        XCTAssertEqual(plan.phases.map(\.outputFirstFrame), [0, 15, 45, 55])
        XCTAssertEqual(plan.outputFrameCount, 70)
        XCTAssertEqual(plan.duration, 2.8, accuracy: 1e-12)
        XCTAssertEqual(plan.phases.map { $0.segments[0].firstFrame }, [5, 20, 40, 50])
        XCTAssertEqual(plan.phases.map { $0.segments[1].firstFrame }, [10, 20, 50, 60])
        XCTAssertEqual(plan.phases.map { $0.segments[0].holdFrameCount }, [0, 10, 0, 10])
        XCTAssertEqual(plan.phases.map { $0.segments[1].holdFrameCount }, [5, 0, 0, 0])
    }

    /// On random timelines: the output is the sum over phases of the longest share, each input's share plus hold
    /// fills its phase, at the first input's rate a share is the input's own frame count, and segments follow
    /// each other.
    func testRandomPlansAddUp() throws {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            let count = Int.random(in: 2...4, using: &random)
            let rates = (0..<count).map { $0 == 0 ? 25.0 : [25.0, 30.0, 50.0, 24000.0 / 1001].randomElement(using: &random)! }
            var inputs: [SyncPlan.Input] = []
            for (number, rate) in rates.enumerated() {
                var time = Double.random(in: 0...1, using: &random)
                var bounds: [(Double, Double)] = []
                for _ in order {
                    let length = Double.random(in: 0.1...2, using: &random)
                    bounds.append((time, time + length))
                    time += length
                }
                inputs.append(input("v\(number)", bounds, rate: rate, frames: Int((time + 1) * rate)))
            }
            let plan = try SyncPlan(inputs: inputs)
            var expectedStart = 0
            for phase in plan.phases {
                XCTAssertEqual(phase.outputFirstFrame, expectedStart)
                XCTAssertEqual(phase.outputFrameCount, phase.segments.map(\.outputFrameCount).max())
                for (segment, rate) in zip(phase.segments, rates) {
                    XCTAssertEqual(segment.outputFrameCount + segment.holdFrameCount, phase.outputFrameCount)
                    XCTAssertGreaterThanOrEqual(segment.holdFrameCount, 0)
                    if rate == 25 { XCTAssertEqual(segment.outputFrameCount, segment.frameCount) }
                    // Resampled: within a frame of the share's length at the output rate.
                    XCTAssertEqual(Double(segment.outputFrameCount), Double(segment.frameCount) * 25 / rate, accuracy: 1.0001)
                }
                expectedStart += phase.outputFrameCount
            }
            XCTAssertEqual(plan.outputFrameCount, expectedStart)
            for index in 0..<count {
                for (earlier, later) in zip(plan.phases, plan.phases.dropFirst()) {
                    XCTAssertLessThanOrEqual(
                        earlier.segments[index].firstFrame + earlier.segments[index].frameCount, later.segments[index].firstFrame)
                }
            }
        }
    }

    func testAPhaseStartsOnTheFirstFrameShownAtOrAfterIt() {
        XCTAssertEqual(SyncPlan.frame(at: 0, rate: 25), 0)
        XCTAssertEqual(SyncPlan.frame(at: 0.04, rate: 25), 1)
        XCTAssertEqual(SyncPlan.frame(at: 0.041, rate: 25), 2)
        XCTAssertEqual(SyncPlan.frame(at: 1.0 / 3, rate: 30), 10)
        XCTAssertEqual(SyncPlan.frame(at: 1001.0 / 30000 * 7, rate: 30000.0 / 1001), 7)
    }

    func testRefusesOrdersThatDifferPhasesMissingOrOutOfOrderAndPhasesPastTheVideo() {
        let good = input("a", [(0, 1), (1, 2), (2, 3), (3, 4)])
        func refusal(_ other: SyncPlan.Input, _ kind: PhaseFailure, _ words: String, file: StaticString = #filePath, line: UInt = #line) {
            let error = assertKindedError(kind, file: file, line: line) { try SyncPlan(inputs: [good, other]) }
            XCTAssertEqual(error?.path, "b.json", file: file, line: line)
            XCTAssertTrue(error?.reason.contains(words) ?? false, "\(String(describing: error))", file: file, line: line)
        }
        refusal(
            input("b", [(0, 1), (1, 2), (2, 3), (3, 4)], order: ["address", "backswing", "finish", "impact"]), .invalidOrder,
            "differs from a.json's")
        refusal(input("b", [(0, 1), (1, 2), (2, 3)], labels: ["address", "backswing", "impact"]), .phaseMissing, "\"finish\" is missing")
        refusal(input("b", [(0, 1), (1, 2), (2, 3), (3, 4)], labels: ["address", "impact", "backswing", "finish"]), .outOfOrder, "out of order")
        refusal(input("b", [(0, 1), (1, 2), (2, 3), (3, 5)], frames: 100), .beyondVideo, "ends at 5.0 s, after the end of the video (4.0 s)")
        refusal(input("b", [(0, 1), (1, 2), (2.01, 2.03), (3, 4)]), .videoTooShort, "holds no frame")
        // Half a frame past the last frame is the video's end written by hand.
        XCTAssertNoThrow(try SyncPlan(inputs: [good, input("b", [(0, 1), (1, 2), (2, 3), (3, 4.01)], frames: 100)]))
        assertKindedError(PhaseFailure.invalidOrder) { try SyncPlan(inputs: [good]) }
    }
}
