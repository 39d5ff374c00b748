import Foundation
import Workbench
import XCTest
import _TestSupport

/// `phases --check` in-process: a phase file's rules, and its fit in a video's length.
final class PhasesCheckWorkflowTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = try WorkbenchBinary.temporaryFolder()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A swing's phases written by `phases -o` (the documented JSON), ending at `end` seconds.
    private func phaseFile(_ name: String, phases: [PhaseTimeline.Phase]) throws -> (path: String, timeline: PhaseTimeline) {
        let timeline = PhaseTimeline(video: "swing.mp4", order: ["address", "swing", "finish"], phases: phases)
        let path = folder.appendingPathComponent(name).path
        try timeline.jsonText().write(toFile: path, atomically: true, encoding: .utf8)
        return (path, timeline)
    }

    private func swing(ending end: Double) -> [PhaseTimeline.Phase] {
        [
            .init(label: "address", start: 0, end: 0.5, confidence: 0.75), .init(label: "swing", start: 0.5, end: 1, confidence: nil),
            .init(label: "finish", start: 1, end: end, confidence: 1),
        ]
    }

    func testAValidFileIsReadBackAndABrokenOneOrAMissingVideoIsNamed() throws {
        let valid = try phaseFile("valid.json", phases: swing(ending: 1.5))
        let result = try PhasesCheckWorkflow.run(PhasesCheckRequest(phases: valid.path))
        XCTAssertEqual(result.timeline, valid.timeline)
        XCTAssertNil(result.videoDuration, "no video given: none probed")

        var swapped = swing(ending: 1.5)
        swapped.swapAt(1, 2)
        let broken = try phaseFile("broken.json", phases: swapped)
        XCTAssertThrowsError(try PhasesCheckWorkflow.run(PhasesCheckRequest(phases: broken.path))) { error in
            XCTAssertEqual(
                error as? WorkbenchError,
                WorkbenchError(
                    path: broken.path,
                    reason: #"phases out of order: phase 2 is "finish", expected "swing" ("order": "address", "swing", "finish")"#))
        }
        let missing = folder.appendingPathComponent("nowhere.mp4").path
        XCTAssertThrowsError(try PhasesCheckWorkflow.run(PhasesCheckRequest(phases: valid.path, video: missing))) { error in
            XCTAssertEqual(error as? WorkbenchError, WorkbenchError(path: missing, reason: "no such video file"))
        }
        XCTAssertThrowsError(try PhasesCheckWorkflow.run(PhasesCheckRequest(phases: valid.path, video: folder.path))) { error in
            XCTAssertEqual(error as? WorkbenchError, WorkbenchError(path: folder.path, reason: "is a folder: phases are found in a video file"))
        }
    }

    /// Needs ffmpeg (the video) and ffprobe (its length): listed in scripts/test-needs-tools.txt.
    func testPhasesMustEndWithinTheVideo() throws {
        let video = folder.appendingPathComponent("swing.mp4")
        let picture = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures/coffee.png")
        try TestMedia.video(pictures: [picture], seconds: 2, to: video, environment: ProcessInfo.processInfo.environment)
        let fits = try phaseFile("fits.json", phases: swing(ending: 1.9))
        let result = try PhasesCheckWorkflow.run(PhasesCheckRequest(phases: fits.path, video: video.path))
        XCTAssertEqual(try XCTUnwrap(result.videoDuration), 2, accuracy: 0.05)
        let late = try phaseFile("late.json", phases: swing(ending: 3))
        XCTAssertThrowsError(try PhasesCheckWorkflow.run(PhasesCheckRequest(phases: late.path, video: video.path))) { error in
            let error = error as? WorkbenchError
            XCTAssertEqual(error?.path, late.path)
            XCTAssertTrue(
                error?.reason.hasPrefix(#"phase "finish" ends at 3.0 s, after the end of the video (swing.mp4: "#) ?? false,
                "\(String(describing: error))")
        }
    }
}
