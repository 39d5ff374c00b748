import XCTest
import Detection

/// The clip rule on synthetic presence sequences: hand-worked edge cases, then the streaming version against the
/// whole-sequence reference on seeded random sequences.
final class PresenceClipsTests: XCTestCase {
    let rule = PresenceClips.Rule(maximumLength: 10, stopAfter: 5)

    /// Samples every 0.2 s for `duration` seconds; `present(t)` says whether the sample at t shows a person.
    private func clips(duration: Double, every: Double = 0.2, _ present: (Double) -> Bool) -> [PresenceClip] {
        let count = Int((duration / every).rounded())
        let times = (0..<count).map { Double($0) * every }
        let presence = times.map(present)
        let streamed = PresenceClips.clips(times: times, presence: presence, videoEnd: duration, rule: rule)
        let reference = PresenceClipsReference.clips(times: times, presence: presence, videoEnd: duration, rule: rule)
        XCTAssertEqual(streamed.count, reference.count)
        for (a, b) in zip(streamed, reference) {
            XCTAssertEqual(a.start, b.start, accuracy: 1e-9)
            XCTAssertEqual(a.end, b.end, accuracy: 1e-9)
            XCTAssertEqual(a.ended, b.ended)
        }
        return streamed
    }

    private func assertClips(
        _ actual: [PresenceClip], _ expected: [(Double, Double, PresenceClip.Ending)],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(actual.count, expected.count, "clips: \(actual)", file: file, line: line)
        for (clip, (start, end, ended)) in zip(actual, expected) {
            XCTAssertEqual(clip.start, start, accuracy: 1e-9, file: file, line: line)
            XCTAssertEqual(clip.end, end, accuracy: 1e-9, file: file, line: line)
            XCTAssertEqual(clip.ended, ended, file: file, line: line)
        }
    }

    func testNobodyGivesNoClip() {
        assertClips(clips(duration: 30) { _ in false }, [])
    }

    func testPersonAtTimeZeroForTwoSecondsEndsFiveSecondsAfterTheLastSighting() {
        // Last sample with a person at 1.8 s (samples 0, 0.2, ..., 1.8 s): ends at 6.8 s.
        assertClips(clips(duration: 30) { $0 < 1.9 }, [(0, 6.8, .noPerson)])
    }

    func testPersonOnlyAtTheLastSampleRunsToTheEndOfTheVideo() {
        assertClips(clips(duration: 20) { $0 > 19.7 }, [(19.8, 20, .endOfVideo)])
    }

    func testGapJustUnderStopAfterKeepsTheClipAndMaxLengthEndsIt() {
        // Seen at 0, 4.8 and 9.6 s (gaps of 4.8 s): one clip, cut at 10 s by max-length; nobody after it.
        assertClips(clips(duration: 30) { time in [0, 4.8, 9.6].contains { abs(time - $0) < 1e-9 } }, [(0, 10, .maximumLength)])
    }

    func testGapOfExactlyStopAfterStartsANewClipAtThatSample() {
        // Seen at 0 and at 5.0 s: the first clip ends at 5.0 s (no-person), the next starts at that very sample.
        assertClips(
            clips(duration: 30) { abs($0) < 1e-9 || abs($0 - 5) < 1e-9 },
            [(0, 5, .noPerson), (5, 10, .noPerson)])
    }

    func testGapJustOverStopAfter() {
        assertClips(
            clips(duration: 30) { abs($0) < 1e-9 || abs($0 - 5.2) < 1e-9 },
            [(0, 5, .noPerson), (5.2, 10.2, .noPerson)])
    }

    func testMaximumLengthWhilePeopleRemainStartsTheNextClipAtTheNextSampleWithAPerson() {
        // Present all along: 0–10, 10–20, 20–25 (end of the video).
        assertClips(clips(duration: 25) { _ in true }, [(0, 10, .maximumLength), (10, 20, .maximumLength), (20, 25, .endOfVideo)])
    }

    func testMaximumLengthThenAGapThenAPerson() {
        // Present 0–12 s, absent until 14 s, present from 14 s to 15 s.
        assertClips(
            clips(duration: 40) { $0 < 12 - 1e-9 || ($0 > 14 - 1e-9 && $0 < 15 - 1e-9) },
            [(0, 10, .maximumLength), (10, 19.8, .noPerson)])
    }

    func testTieBetweenMaxLengthAndEndOfVideoIsMaxLength() {
        assertClips(clips(duration: 10) { _ in true }, [(0, 10, .maximumLength)])
    }

    func testStreamedAgainstReferenceOnRandomSequences() {
        var state: UInt64 = 0x2024_0024
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        for _ in 0..<400 {
            let every = [0.2, 0.5, 1, 0.1][Int(next() % 4)]
            let count = Int(next() % 200)
            let stay = Double(next() % 100) / 100
            var present = next() % 2 == 0
            let times = (0..<count).map { Double($0) * every }
            let presence = times.map { _ in
                if Double(next() % 1000) / 1000 > stay { present.toggle() }
                return present
            }
            let rule = PresenceClips.Rule(maximumLength: Double(1 + next() % 15), stopAfter: Double(1 + next() % 8) * every)
            let videoEnd = Double(count) * every - Double(next() % 2) * every / 2
            let streamed = PresenceClips.clips(times: times, presence: presence, videoEnd: videoEnd, rule: rule)
            let reference = PresenceClipsReference.clips(times: times, presence: presence, videoEnd: videoEnd, rule: rule)
            XCTAssertEqual(streamed.count, reference.count, "every \(every), rule \(rule), presence \(presence)")
            for (a, b) in zip(streamed, reference) {
                XCTAssertEqual(a.start, b.start, accuracy: 1e-9)
                XCTAssertEqual(a.end, b.end, accuracy: 1e-9)
                XCTAssertEqual(a.ended, b.ended, "every \(every), rule \(rule), presence \(presence)")
            }
            // Clips never overlap, each starts at a sample with a person and lasts at most the maximum length.
            for (clip, following) in zip(streamed, streamed.dropFirst()) { XCTAssertLessThanOrEqual(clip.end, following.start + 1e-9) }
            for clip in streamed {
                XCTAssertLessThanOrEqual(clip.end - clip.start, rule.maximumLength + 1e-9)
                XCTAssertTrue(zip(times, presence).contains { abs($0.0 - clip.start) < 1e-9 && $0.1 })
            }
        }
    }
}
