import Phases
import XCTest
import _TestSupport

final class PhaseFinderTests: XCTestCase {
    func testMinimumSamplesRoundUpWithSlackForRounding() {
        XCTAssertEqual(PhaseFinder.minimumSamples(minimumLength: 0.1, interval: 0.04), 3)
        XCTAssertEqual(PhaseFinder.minimumSamples(minimumLength: 0.1, interval: 0.02), 5)
        XCTAssertEqual(PhaseFinder.minimumSamples(minimumLength: 0.1, interval: 0.05), 2)
        XCTAssertEqual(PhaseFinder.minimumSamples(minimumLength: 0, interval: 0.05), 1)
        XCTAssertEqual(PhaseFinder.minimumSamples(minimumLength: 0.1, interval: 1), 1)
    }

    /// Samples every 0.5 s whose arg-max runs: before, a, a, b, b, b, after; the video lasts 3.4 s.
    private func samples(duration: Double? = 3.4) -> PhaseFinder.Samples {
        let sequence = [0, 1, 1, 2, 2, 2, 3]
        let rows: [[Float]] = sequence.map { best in (0..<4).map { $0 == best ? 0.7 : 0.1 } }
        return PhaseFinder.Samples(
            times: sequence.indices.map { Double($0) * 0.5 }, probabilities: rows, interval: 0.5,
            videoDuration: duration)
    }

    func testTimesConfidencesAndTheLastPhasesEnd() throws {
        let labels = ["before", "a", "b", "after"]
        let timeline = try PhaseFinder.timeline(
            video: "v.mp4", samples: samples(), labels: labels, order: ["a", "b"],
            modelPath: "m.wbmodel", minimumLength: 0.5)
        XCTAssertEqual(timeline.phases.map(\.label), ["a", "b"])
        XCTAssertEqual(timeline.phases.map(\.start), [0.5, 1.5])
        // The last phase ends at the first "after" sample.
        XCTAssertEqual(timeline.phases.map(\.end), [1.5, 3.0])
        XCTAssertEqual(timeline.phases[0].confidence ?? 0, 0.7, accuracy: 1e-6)
        XCTAssertNoThrow(try timeline.validate(path: "out.json"))
        // Without an outside label the phases cover the video: the last ends at its stated length.
        let covering = try PhaseFinder.timeline(
            video: "v.mp4", samples: samples(), labels: ["a", "b", "c", "d"],
            order: ["a", "b", "c", "d"], modelPath: "m.wbmodel", minimumLength: 0.5)
        XCTAssertEqual(covering.phases.first?.start, 0)
        XCTAssertEqual(covering.phases.last?.end, 3.4)
        let unknownLength = try PhaseFinder.timeline(
            video: "v.mp4", samples: samples(duration: nil), labels: ["a", "b", "c", "d"],
            order: ["a", "b", "c", "d"], modelPath: "m.wbmodel", minimumLength: 0.5)
        XCTAssertEqual(unknownLength.phases.last?.end, 3.5)
    }

    func testAVideoTooShortForTheMinimumLengthsIsOneLine() {
        let error = assertKindedError(PhaseFailure.videoTooShort) {
            try PhaseFinder.timeline(
                video: "v.mp4", samples: samples(), labels: ["before", "a", "b", "after"],
                order: ["a", "b"], modelPath: "m.wbmodel", minimumLength: 2)
        }
        XCTAssertEqual(error?.path, "v.mp4")
        XCTAssertTrue(error?.reason.contains("too short for 2 phases of at least 2 s each") ?? false, "\(String(describing: error))")
    }
}
