@testable import Labeling
@testable import Video
import XCTest
import _TestSupport

/// Stretches from markers, the WebVTT writer (checked by the test suite's own reader of the specification) and the
/// caption script of the burned-in review copy.
final class ReviewOutputTests: XCTestCase {
    private func frame(_ second: Double, _ probabilities: [Float]) -> LabeledFrame {
        let best = probabilities.indices.max { probabilities[$0] < probabilities[$1] }!
        return LabeledFrame(
            index: Int(second), second: second, label: ["cat", "dog"][best], confidence: probabilities[best],
            probabilities: probabilities)
    }

    func testStretchesMergeRepeatedMarkersAndCoverTheMovie() {
        let frames = [frame(0, [0.9, 0.1]), frame(1, [0.7, 0.3]), frame(2, [0.2, 0.8]), frame(3, [0.4, 0.6]), frame(4, [0.6, 0.4])]
        let markers = [
            Marker(second: 0, label: "cat"), Marker(second: 1, label: "cat"), Marker(second: 2, label: "dog"),
            Marker(second: 3, label: "dog"), Marker(second: 4, label: "Unsure"),
        ]
        let stretches = LabelStretches.make(markers: markers, frames: frames, labels: ["cat", "dog"], end: 5.5)
        XCTAssertEqual(stretches.map(\.label), ["cat", "dog", "Unsure"])
        XCTAssertEqual(stretches.map(\.start), [0, 2, 4])
        XCTAssertEqual(stretches.map(\.end), [2, 4, 5.5])
        // cat: (0.9 + 0.7) / 2; dog: (0.8 + 0.6) / 2; Unsure is not a model label: the top probability, 0.6.
        XCTAssertEqual(stretches[0].meanConfidence, 0.8, accuracy: 1e-6)
        XCTAssertEqual(stretches[1].meanConfidence, 0.7, accuracy: 1e-6)
        XCTAssertEqual(stretches[2].meanConfidence, 0.6, accuracy: 1e-6)
        // A duration rounded below the last marker still leaves the last stretch a second.
        XCTAssertEqual(LabelStretches.make(markers: markers, frames: frames, labels: ["cat", "dog"], end: 3.9).last?.end, 5)
        XCTAssertEqual(LabelStretches.make(markers: [], frames: frames, labels: ["cat", "dog"], end: 5), [])
    }

    func testWebVTTParsesAsTheSpecificationSaysAndKeepsLabelsLiteral() throws {
        let stretches = [
            LabelStretch(start: 0, end: 2.5, label: "cat", meanConfidence: 0.81),
            LabelStretch(start: 2.5, end: 3723.4567, label: "<b>fish & chips</b> --> x", meanConfidence: 0.5),
            LabelStretch(start: 3723.4567, end: 3723.4568, label: "too short to show", meanConfidence: 1),
        ]
        let text = WebVTT.document(stretches: stretches)
        let cues = try WebVTTFile.parse(text)
        XCTAssertEqual(cues.map(\.start), [0, 2.5])
        XCTAssertEqual(cues.map(\.end), [2.5, 3723.457])
        XCTAssertEqual(cues.map(\.identifier), ["1", "2"])
        // Labels between Unicode isolates (FSI … PDI), so a right-to-left name cannot reorder the percentage.
        XCTAssertEqual(cues[0].text, "\u{2068}cat\u{2069} (81 %)")
        XCTAssertEqual(cues[1].text, "\u{2068}&lt;b&gt;fish &amp; chips&lt;/b&gt; --&gt; x\u{2069} (50 %)")
        XCTAssertEqual(WebVTT.timestamp(3723.4567), "01:02:03.457")
        XCTAssertEqual(WebVTT.timestamp(0), "00:00:00.000")
        XCTAssertEqual(WebVTT.timestamp(360_000), "100:00:00.000")
    }

    func testTheReaderRefusesWhatTheSpecificationForbids() {
        let invalid = [
            "WEBVTTX\n\n00:00.000 --> 00:01.000\na\n": "signature",
            "WEBVTT\n00:00.000 --> 00:01.000\na\n": "no blank line after the header",
            "WEBVTT\n\n00:60.000 --> 01:01.000\na\n": "60 seconds",
            "WEBVTT\n\n00:02.000 --> 00:01.000\na\n": "ends before it starts",
            "WEBVTT\n\n00:05.000 --> 00:06.000\na\n\n00:01.000 --> 00:02.000\nb\n": "out of order",
            "WEBVTT\n\n00:00.000 --> 00:01.000\na --> b\n": "--> in text",
            "WEBVTT\n\n00:00.000 --> 00:01.000\nfish & chips\n": "bare &",
            "WEBVTT\n\n00:00.000 --> 00:01.000\n<script>x</script>\n": "not a cue tag",
            "WEBVTT\n\n0:00:00.00 --> 0:00:01.000\na\n": "short hours and milliseconds",
        ]
        for (text, why) in invalid {
            XCTAssertThrowsError(try WebVTTFile.parse(text), why)
        }
        XCTAssertEqual(
            try WebVTTFile.parse(
                "\u{FEFF}WEBVTT - header\r\nKind: captions\r\n\r\nNOTE a comment\r\n\r\nid\r\n01:00.000 --> 01:02:03.004 align:start\r\n<i>x</i> &amp; y\r\n"
            ).map(\.end),
            [3723.004])
    }

    func testCaptionCommandsSurviveBothLayersOfQuoting() {
        let commands = AnnotatedVideo.commands([.init(second: 0, text: "Cat  92 %"), .init(second: 1.5, text: "Dog: it's [a], b;\\c\nd")])
        // drawtext's option string escapes \ ' : with a backslash; sendcmd's token then escapes \ ' , ; [ ] and space.
        XCTAssertEqual(
            commands,
            """
            0.000 drawtext reinit text=Cat\\ \\ 92\\ %;
            1.500 drawtext reinit text=Dog\\\\:\\ it\\\\\\'s\\ \\[a\\]\\,\\ b\\;\\\\\\\\c\\ d;

            """)
    }
}
