import XCTest
@testable import Labeling

final class MarkerPolicyTests: XCTestCase {
    private let labels = ["Calm", "Scary"]

    /// One frame per second with the given labels at confidence 0.9.
    private func frames(_ sequence: String) -> [LabeledFrame] {
        sequence.enumerated().map { second, letter in
            labeledFrame(Double(second), labels, letter == "C" ? [0.9, 0.1] : [0.1, 0.9])
        }
    }

    func testChangesOnlyKeepsFirstAndChanges() {
        let markers = MarkerPolicy().markers(frames("CCSSSC"))
        XCTAssertEqual(
            markers,
            [
                Marker(second: 0, label: "Calm"), Marker(second: 2, label: "Scary"),
                Marker(second: 5, label: "Calm"),
            ])
    }

    func testEveryFrameWithoutChangesOnly() {
        let object = MarkerPolicy(changesOnly: false).markerObject(frames("CSC"))
        XCTAssertEqual(object, ["0": "Calm", "1": "Scary", "2": "Calm"])
    }

    func testFallbackBelowMinimumConfidence() {
        let input = [
            labeledFrame(0, labels, [0.9, 0.1]), labeledFrame(1, labels, [0.45, 0.55]),
            labeledFrame(2, labels, [0.2, 0.8]), labeledFrame(3, labels, [0.6, 0.4]),
        ]
        let policy = MarkerPolicy(minimumConfidence: 0.7, fallbackLabel: "Unsure", changesOnly: false)
        XCTAssertEqual(policy.markerObject(input), ["0": "Calm", "1": "Unsure", "2": "Scary", "3": "Unsure"])
        // Exactly at the threshold is confident enough.
        XCTAssertEqual(MarkerPolicy(minimumConfidence: 0.8).frameLabels([labeledFrame(0, labels, [0.2, 0.8])]), ["Scary"])
    }

    /// Each frame's decision carries the confidence that put its label there: for a fallback, the verdict's
    /// confidence that fell below the minimum, with the verdict beside it.
    func testDecisionsExplainFallbackAndSmoothing() {
        let input = [
            labeledFrame(0, labels, [0.9, 0.1]), labeledFrame(1, labels, [0.42, 0.58]),
            labeledFrame(2, labels, [0.95, 0.05]), labeledFrame(3, labels, [0.1, 0.9]),
            labeledFrame(4, labels, [0.85, 0.15]),
        ]
        let policy = MarkerPolicy(minimumConfidence: 0.6, fallbackLabel: "Unsure")
        XCTAssertEqual(
            policy.decisions(input)[1],
            FrameDecision(
                label: "Unsure", verdict: "Scary", confidence: 0.58,
                isBelowMinimum: true, isSmoothed: false))
        XCTAssertEqual(
            policy.decisions(input)[0],
            FrameDecision(
                label: "Calm", verdict: "Calm", confidence: 0.9,
                isBelowMinimum: false, isSmoothed: false))
        var smoothing = policy
        smoothing.smoothing = 3
        // Step-1 labels C U C S C. Votes over s − 1 … s + 1: at 0 C.9 against U.58 (tie, higher mean wins: C);
        // at 1 C, C; at 2 U, C, S all tied, C's .95 the best mean; at 3 C, C; at 4 S.9 against C.85: S.
        let smoothed = smoothing.decisions(input)
        XCTAssertEqual(smoothed.map(\.label), ["Calm", "Calm", "Calm", "Calm", "Scary"])
        XCTAssertEqual(smoothed.map(\.isSmoothed), [false, true, false, true, true])
        XCTAssertEqual(smoothed[3].verdict, "Scary")
        XCTAssertEqual(smoothed.map(\.isBelowMinimum), [false, true, false, false, false])
    }

    /// The fallback may be one of the model's own labels: unsure frames then count as that label.
    func testFallbackMayBeAModelLabel() {
        let input = [labeledFrame(0, labels, [0.55, 0.45]), labeledFrame(1, labels, [0.3, 0.7]), labeledFrame(2, labels, [0.1, 0.9])]
        let policy = MarkerPolicy(minimumConfidence: 0.8, fallbackLabel: "Calm", changesOnly: false)
        XCTAssertEqual(policy.markerObject(input), ["0": "Calm", "1": "Calm", "2": "Scary"])
        XCTAssertEqual(policy.decisions(input).map(\.isBelowMinimum), [true, true, false])
        XCTAssertEqual(policy.decisions(input)[1].verdict, "Scary")
    }

    func testSmoothingRemovesOneSecondFlicker() {
        let policy = MarkerPolicy(smoothing: 3)
        XCTAssertEqual(policy.frameLabels(frames("CCSCCSSSCSS")), Array("CCCCCSSSSSS").map { $0 == "C" ? "Calm" : "Scary" })
        XCTAssertEqual(policy.markers(frames("CCSCCSSSCSS")), [Marker(second: 0, label: "Calm"), Marker(second: 5, label: "Scary")])
    }

    func testSmoothingWindowOfFiveNeedsThreeVotes() {
        // Window [s−2.5, s+2.5): at second 3, frames 1…5 = C S S C C → Calm 3 vs Scary 2.
        let policy = MarkerPolicy(smoothing: 5)
        XCTAssertEqual(policy.frameLabels(frames("CCSSCCC"))[3], "Calm")
        // At second 2 the window is frames 0…4 = C C S S C → Calm.
        XCTAssertEqual(policy.frameLabels(frames("CCSSCCC"))[2], "Calm")
    }

    func testTieGoesToHigherMeanConfidenceThenCurrent() {
        // Even window of 2: [s−1, s+1) = previous and current frame.
        let policy = MarkerPolicy(smoothing: 2, changesOnly: false)
        let input = [labeledFrame(0, labels, [0.95, 0.05]), labeledFrame(1, labels, [0.4, 0.6])]
        // Second 1: Calm (0.95) vs Scary (0.6), one vote each → Calm by confidence.
        XCTAssertEqual(policy.frameLabels(input), ["Calm", "Calm"])
        let equal = [labeledFrame(0, labels, [0.7, 0.3]), labeledFrame(1, labels, [0.3, 0.7])]
        // Same votes, same mean confidence → the frame's own label.
        XCTAssertEqual(policy.frameLabels(equal), ["Calm", "Scary"])
    }

    func testSmoothingVotesWithFallbackLabels() {
        let input = [
            labeledFrame(0, labels, [0.9, 0.1]), labeledFrame(1, labels, [0.55, 0.45]),
            labeledFrame(2, labels, [0.52, 0.48]),
        ]
        let policy = MarkerPolicy(minimumConfidence: 0.6, fallbackLabel: "Unsure", smoothing: 3)
        XCTAssertEqual(policy.frameLabels(input), ["Calm", "Unsure", "Unsure"])
    }

    func testSubSecondFramesShareAKeyLastWins() {
        let input = [
            labeledFrame(0, labels, [0.9, 0.1]), labeledFrame(0.5, labels, [0.1, 0.9]),
            labeledFrame(1, labels, [0.1, 0.9]), labeledFrame(1.5, labels, [0.9, 0.1]),
        ]
        XCTAssertEqual(MarkerPolicy(changesOnly: false).markerObject(input), ["0": "Scary", "1": "Calm"])
        // With changes only, a marker equal to the previous one after keying is dropped.
        let flicker = [
            labeledFrame(0, labels, [0.9, 0.1]), labeledFrame(1, labels, [0.1, 0.9]),
            labeledFrame(1.5, labels, [0.9, 0.1]), labeledFrame(2, labels, [0.9, 0.1]),
        ]
        XCTAssertEqual(MarkerPolicy().markers(flicker), [Marker(second: 0, label: "Calm")])
    }

    func testEmptyInputGivesNoMarkers() {
        XCTAssertEqual(MarkerPolicy(smoothing: 3).markers([]), [])
    }
}
