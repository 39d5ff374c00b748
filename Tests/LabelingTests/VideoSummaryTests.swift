import Foundation
import XCTest
@testable import Labeling
import Video

final class VideoSummaryTests: XCTestCase {
    private let labels = ["Calm", "Scary"]

    /// Scary probabilities per second; Calm is the complement.
    private func frames(_ scary: [Float]) -> [LabeledFrame] {
        scary.enumerated().map { labeledFrame(Double($0.offset), labels, [1 - $0.element, $0.element]) }
    }

    func testMeansTopLabelAndBestWindow() throws {
        // Hand-computed: mean Scary = 3.4 / 8 = 0.425; best 3-s Scary window starts at 3: (0.9+0.8+0.7)/3 = 0.8.
        let summary = VideoSummary(
            video: "v.mp4", labels: labels,
            frames: frames([0.1, 0.2, 0.3, 0.9, 0.8, 0.7, 0.2, 0.2]), window: 3)
        XCTAssertEqual(summary.meanConfidence["Scary"]!, 0.425, accuracy: 1e-6)
        XCTAssertEqual(summary.meanConfidence["Calm"]!, 0.575, accuracy: 1e-6)
        XCTAssertEqual(summary.topLabel, "Calm")
        let scary = try XCTUnwrap(summary.bestWindows["Scary"])
        XCTAssertEqual(scary.start, 3)
        XCTAssertEqual(scary.end, 6)
        XCTAssertEqual(scary.meanConfidence, 0.8, accuracy: 1e-6)
        // Calm's best 3-s window: seconds 0–2, mean (0.9+0.8+0.7)/3 = 0.8.
        XCTAssertEqual(summary.bestWindows["Calm"]!.start, 0)
        XCTAssertEqual(summary.bestWindows["Calm"]!.meanConfidence, 0.8, accuracy: 1e-6)
    }

    func testTiesGoToTheEarliestWindowAndWindowsFit() {
        let summary = VideoSummary(video: "v", labels: labels, frames: frames([0.5, 0.9, 0.1, 0.9, 0.1, 0.9]), window: 2)
        // [0,2) averages 0.7; every later 2-s window 0.5.
        XCTAssertEqual(summary.bestWindows["Scary"]!.start, 0)
        let tie = VideoSummary(video: "v", labels: labels, frames: frames([0.1, 0.9, 0.1, 0.9, 0.1]), window: 1)
        XCTAssertEqual(tie.bestWindows["Scary"]!.start, 1)
        // The last window must fit: with 5 frames and a 3-s window the latest start is 2.
        let late = VideoSummary(video: "v", labels: labels, frames: frames([0, 0, 0.3, 0.3, 1]), window: 3)
        XCTAssertEqual(late.bestWindows["Scary"]!.start, 2)
        XCTAssertEqual(late.bestWindows["Scary"]!.end, 5)
    }

    func testVideoShorterThanWindowIsOneWindow() {
        let summary = VideoSummary(video: "v", labels: labels, frames: frames([0.2, 0.4]), window: 10)
        XCTAssertEqual(summary.bestWindows["Scary"], LabelWindow(label: "Scary", start: 0, end: 2, meanConfidence: 0.3))
    }

    /// Two hours sampled 25 times a second with a half-hour window: one pass, not a sum per start (which took
    /// minutes); the best window is where the hand-placed high stretch is.
    func testLongVideoWithLongWindowIsFast() throws {
        let count = 2 * 3600 * 25
        let input = (0..<count).map { index -> LabeledFrame in
            let scary: Float = (100_000..<145_000).contains(index) ? 0.9 : 0.2
            return LabeledFrame(
                index: index, second: Double(index) / 25, label: scary > 0.5 ? "Scary" : "Calm",
                confidence: max(scary, 1 - scary), probabilities: [1 - scary, scary])
        }
        let started = Date()
        let summary = VideoSummary(video: "v", labels: labels, frames: input, window: 1800)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        let scary = try XCTUnwrap(summary.bestWindows["Scary"])
        XCTAssertEqual(scary.start, 4000, "the 45,000-frame window of 0.9 starts at frame 100,000")
        XCTAssertEqual(scary.end, 5800)
        XCTAssertEqual(scary.meanConfidence, 0.9, accuracy: 1e-6)
    }

    func testChoosingClips() {
        let a = VideoSummary(video: "a", labels: labels, frames: frames([0.9, 0.9, 0.1]), window: 1)  // Scary top, mean .633
        let b = VideoSummary(video: "b", labels: labels, frames: frames([0.1, 0.2, 0.3]), window: 1)  // Calm top, mean .2
        let c = VideoSummary(video: "c", labels: labels, frames: frames([0.2, 0.95, 0.9]), window: 2)  // Scary top, mean .683
        let scary = Highlights.choose(label: "Scary", from: [a, b, c], selection: .videosWhereTopLabel)
        XCTAssertEqual(scary.map(\.clip), [Clip(video: "a", start: 0, end: 1), Clip(video: "c", start: 1, end: 3)])
        // Each clip's score is its window's mean: 0.9, then (0.95 + 0.9) / 2.
        XCTAssertEqual(scary[0].score, 0.9, accuracy: 1e-6)
        XCTAssertEqual(scary[1].score, 0.925, accuracy: 1e-6)
        XCTAssertEqual(
            Highlights.choose(label: "Scary", from: [a, b, c], selection: .topVideos(count: 2)).map(\.clip.video),
            ["c", "a"])
        XCTAssertEqual(
            Highlights.choose(label: "Calm", from: [a, b, c], selection: .topVideos(count: 1)).map(\.clip),
            [Clip(video: "b", start: 0, end: 1)])
        XCTAssertEqual(Highlights.choose(label: "Funny", from: [a, b, c], selection: .topVideos(count: 3)), [])
    }
}
