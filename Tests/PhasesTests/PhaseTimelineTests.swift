import FileFormats
import Foundation
import Phases
import XCTest
import _TestSupport

final class PhaseTimelineTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("phase-timeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Writes `text` to a file in the test's folder and returns its path.
    private func file(_ text: String, name: String = "phases.json") throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A hand file with the four golf phases, each phase given as (label, start, end).
    private func handFile(_ phases: [(String, Double, Double)], order: [String] = ["address", "backswing", "impact", "finish"]) throws -> String {
        let orderText = order.map { "\"\($0)\"" }.joined(separator: ", ")
        let phaseText = phases.map { "{\"label\": \"\($0.0)\", \"start\": \($0.1), \"end\": \($0.2)}" }.joined(separator: ", ")
        return try file("{\"video\": \"swing.mp4\", \"order\": [\(orderText)], \"phases\": [\(phaseText)]}", name: "\(UUID().uuidString).json")
    }

    private let good: [(String, Double, Double)] = [("address", 0, 1), ("backswing", 1, 1.8), ("impact", 1.8, 2.1), ("finish", 2.1, 3)]

    func testReadsTheDocumentedShapeWrittenByHand() throws {
        let text =
            #"{"video": "a.mp4", "order": ["address", "impact"], "phases": [{"label": "address", "start": 0, "end": 1.5}, {"label": "impact", "start": 1.5, "end": 2, "confidence": 0.9}]}"#
        let timeline = try JSONDecoder().decode(PhaseTimeline.self, from: Data(text.utf8))
        XCTAssertEqual(timeline.order, ["address", "impact"])
        XCTAssertEqual(timeline.phases.map(\.start), [0, 1.5])
        XCTAssertNil(timeline.phases[0].confidence)
        XCTAssertEqual(timeline.phases[1].confidence, 0.9)
        XCTAssertEqual(try PhaseTimeline.read(path: try file(text)), timeline)
    }

    func testAValidHandFileReadsAndAGapIsAllowed() throws {
        let timeline = try PhaseTimeline.read(path: try handFile(good))
        XCTAssertEqual(timeline.phases.map(\.label), ["address", "backswing", "impact", "finish"])
        var gap = good
        gap[1].1 = 1.2
        XCTAssertEqual(try PhaseTimeline.read(path: try handFile(gap)).phases[1].start, 1.2)
    }

    func testWrittenJSONReadsBackUnchanged() throws {
        let timeline = PhaseTimeline(
            video: "a \"b\"\n.mp4", order: ["x", "y"],
            phases: [.init(label: "x", start: 0, end: 0.5, confidence: 0.75), .init(label: "y", start: 0.5, end: 2)])
        let text = timeline.jsonText()
        XCTAssertEqual(try PhaseTimeline.read(path: try file(text)), timeline)
        XCTAssertEqual(try JSONDecoder().decode(PhaseTimeline.self, from: Data(text.utf8)), timeline)
        XCTAssertTrue(text.hasPrefix("{\n  \"video\": "))
    }

    func testEachBrokenRuleIsOneLineNamingTheFile() throws {
        let cases: [(PhaseFailure, String, String)] = [
            (.notJSON, try file("{\"video\": ", name: "a.json"), "not valid JSON"),
            (.notPhaseTimeline, try file("[1, 2]", name: "b.json"), "not a phase file"),
            (
                .notPhaseTimeline, try file("{\"video\": \"v\", \"order\": [\"a\"], \"phases\": [{\"label\": \"a\", \"start\": 0}]}", name: "c.json"),
                "no \"end\""
            ),
            (.invalidOrder, try handFile([], order: []), "\"order\" is empty"),
            (.invalidOrder, try handFile([], order: ["a", "a"]), "twice"),
            (.labelNotInOrder, try handFile([("address", 0, 1), ("swing", 1, 2)]), "\"swing\" is not in \"order\""),
            (.phaseMissing, try handFile([good[0], good[2], good[3]]), "phase \"backswing\" is missing"),
            (.phaseMissing, try handFile(Array(good.prefix(3))), "phase \"finish\" is missing"),
            (.outOfOrder, try handFile([good[0], good[2], good[1], good[3]]), "out of order"),
            (.outOfOrder, try handFile([good[0], good[1], good[1], good[2], good[3]]), "out of order"),
            (.invalidTime, try handFile([("address", -1, 1), good[1], good[2], good[3]]), "negative"),
            (.emptyPhase, try handFile([good[0], ("backswing", 1.8, 1.8), good[2], good[3]]), "does not end after it"),
            (.emptyPhase, try handFile([good[0], ("backswing", 1.9, 1.8), good[2], good[3]]), "does not end after it"),
            (.overlapping, try handFile([good[0], ("backswing", 0.9, 1.8), good[2], good[3]]), "before phase \"address\" ends"),
        ]
        for (kind, path, words) in cases {
            let error = assertKindedError(kind) { try PhaseTimeline.read(path: path) }
            XCTAssertEqual(error?.path, path)
            XCTAssertTrue(error?.reason.contains(words) ?? false, "\(error.map(String.init(describing:)) ?? "no error") lacks \(words)")
        }
    }

    func testFilesThatAreNotFilesAreRefusedWithoutBlocking() throws {
        assertKindedError(PhaseFailure.unreadable) { try PhaseTimeline.read(path: folder.appendingPathComponent("none.json").path) }
        assertKindedError(PhaseFailure.unreadable) { try PhaseTimeline.read(path: folder.path) }
        let fifo = folder.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        assertKindedError(PhaseFailure.unreadable) { try PhaseTimeline.read(path: fifo) }
    }

    func testTheVideoMustHoldThePhases() throws {
        let path = try handFile(good)
        let timeline = try PhaseTimeline.read(path: path)
        XCTAssertNoThrow(try timeline.checkFits(videoDuration: 3, path: path))
        XCTAssertNoThrow(try timeline.checkFits(videoDuration: 2.96, path: path))
        let error = assertKindedError(PhaseFailure.beyondVideo) { try timeline.checkFits(videoDuration: 2.5, path: path) }
        XCTAssertTrue(error?.reason.contains("after the end of the video") ?? false)
    }

    func testPhaseAtATime() throws {
        let timeline = try PhaseTimeline.read(path: try handFile(good))
        XCTAssertEqual(timeline.phase(at: 0)?.label, "address")
        XCTAssertEqual(timeline.phase(at: 1.8)?.label, "impact")
        XCTAssertNil(timeline.phase(at: 3))
    }
}
