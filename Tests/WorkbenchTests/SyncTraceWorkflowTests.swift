import Foundation
import Workbench
import XCTest
import _TestSupport

/// `SyncWorkflow.run` and `TraceWorkflow.run` in this process on small test-pattern videos (ffmpeg makes them and
/// the workflows render with it): the plan and frames the workflows return, the events they send, the video they
/// write, and refusals before any work.
final class SyncTraceWorkflowTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws { folder = try WorkbenchBinary.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// `seconds` of ffmpeg's test pattern at 25 fps, 160 × 120.
    private func video(_ name: String, seconds: Double) throws -> String {
        let arguments = [
            "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=\(seconds)",
            "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", path(name),
        ]
        let outcome = try WorkbenchBinary.runProcess("/usr/bin/env", ["ffmpeg"] + arguments, environment: ProcessInfo.processInfo.environment)
        XCTAssertEqual(outcome.status, 0, outcome.standardError)
        return path(name)
    }

    /// A phase file for `video` with the three phases' bounds.
    private func phases(_ name: String, video: String, _ bounds: [(String, Double, Double)]) throws -> String {
        let timeline = PhaseTimeline(
            video: video, order: bounds.map(\.0), phases: bounds.map { PhaseTimeline.Phase(label: $0.0, start: $0.1, end: $0.2) })
        let data = try JSONEncoder().encode(timeline)
        try data.write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    func testSyncPlansAndRendersThePhasesInStep() throws {
        let a = try video("a.mp4", seconds: 2), b = try video("b.mp4", seconds: 3)
        let aPhases = try phases("a.json", video: a, [("address", 0.2, 0.8), ("swing", 0.8, 1.6), ("finish", 1.6, 2.0)])
        let bPhases = try phases("b.json", video: b, [("address", 0.4, 0.8), ("swing", 0.8, 2.0), ("finish", 2.0, 2.4)])
        var planned = 0
        var rendered: [Double] = []
        let result = try SyncWorkflow.run(SyncRequest(videos: [a, b], phaseFiles: [aPhases, bPhases], output: path("side.mp4"))) { event in
            switch event {
            case .planned: planned += 1
            case .rendering(let fraction): rendered.append(fraction)
            case .findingPhases: XCTFail("phase files, no model")
            }
        }
        XCTAssertEqual(planned, 1)
        XCTAssertEqual(rendered, rendered.sorted(), "the share rendered only grows")
        XCTAssertEqual(result.output, path("side.mp4"))
        // Each phase as long as its longer input: 0.6 s, 1.2 s and 0.4 s at 25 fps.
        XCTAssertEqual(result.plan.phases.map(\.outputFrameCount), [15, 30, 10])
        XCTAssertEqual(result.plan.outputFrameCount, 55)
        XCTAssertEqual(result.timelines.map(\.video), [a, b])
        XCTAssertEqual(result.phaseFileMismatches.count, 0)
        XCTAssertGreaterThan((try FileManager.default.attributesOfItem(atPath: path("side.mp4"))[.size] as? Int) ?? 0, 0)

        // Phase files given in the other order name the other video: refused, nothing written.
        let swapped = SyncRequest(videos: [a, b], phaseFiles: [bPhases, aPhases], output: path("swapped.mp4"))
        XCTAssertThrowsError(try SyncWorkflow.run(swapped)) { error in XCTAssertTrue("\(error)".hasPrefix(bPhases), "\(error)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("swapped.mp4")))
        // The output over an input: refused before any work.
        XCTAssertThrowsError(try SyncWorkflow.run(SyncRequest(videos: [a, b], phaseFiles: [aPhases, bPhases], output: b)))
    }

    func testTraceDrawsTheCurveFromItsStartToItsEnd() throws {
        let a = try video("a.mp4", seconds: 2)
        let points = [OverlayPoint(x: 20, y: 100), OverlayPoint(x: 80, y: 20), OverlayPoint(x: 140, y: 100)]
        var request = TraceRequest(video: a, points: points, start: 0.4, duration: 0.8, output: path("t.mp4"))
        var rendered: [Double] = []
        let result = try TraceWorkflow.run(request) { if case .rendering(let fraction) = $0 { rendered.append(fraction) } }
        XCTAssertFalse(rendered.isEmpty)
        XCTAssertEqual(result.output, path("t.mp4"))
        // From frame 10 (0.4 s) to frame 30 (1.2 s), where the curve is whole; its tip ends at the end point.
        XCTAssertEqual(result.frames.first?.frame, 10)
        XCTAssertEqual(result.frames.last?.frame, 30)
        XCTAssertEqual(result.frames.last?.progress ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(result.frames.last?.point.x ?? 0, 140, accuracy: 1e-9)
        XCTAssertEqual(result.frames.last?.point.y ?? 0, 100, accuracy: 1e-9)
        XCTAssertEqual(result.frames.map(\.progress), result.frames.map(\.progress).sorted())
        XCTAssertGreaterThan((try FileManager.default.attributesOfItem(atPath: path("t.mp4"))[.size] as? Int) ?? 0, 0)

        request.points.removeLast()
        request.output = path("two.mp4")
        XCTAssertThrowsError(try TraceWorkflow.run(request)) { error in
            XCTAssertEqual("\(error)", "a trace needs 3 points (start, a point it passes, end), not 2")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("two.mp4")))
    }
}
