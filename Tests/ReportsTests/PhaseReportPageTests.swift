import Foundation
import ImageCodecs
import XCTest
import _TestSupport
@testable import Pages
@testable import Reports

/// The page `phases --html` writes: its markup under hostile phase names and video paths, and Chromium's view of it.
final class PhaseReportPageTests: XCTestCase {
    private func page(_ name: String) -> String {
        let phases = [
            PhaseReportPage.Phase(label: name, start: 0.5, end: 1.5, confidence: 0.9, picture: nil),
            PhaseReportPage.Phase(label: "second phase", start: 1.5, end: 2.75, confidence: nil, picture: nil),
        ]
        return PhaseReportPage(
            title: "Phases: \(Markup.isolate(name))", subtitle: ["order \(Markup.isolate(name)) → second phase"],
            video: "videos/\(name).mp4", duration: 3, order: [name, "second phase"], phases: phases
        ).html()
    }

    func testThePageKeepsItsMarkupAndIsolatesEveryName() {
        HostileNames.check("phase page", count: 150, includingNUL: true) { name in
            // The plain name of the same length: the strip writes a phase's name only where it fits.
            let plain = HostileNames.tagSequence(page(String(repeating: "x", count: name.count)))
            return HostileNames.markupProblem(page(name), plainTags: plain)
        }
    }

    func testChromiumShowsThePhasesWithoutErrorsOrRequests() throws {
        let picture = try Picture.jpeg(RGBImage(width: 8, height: 8, pixels: [UInt8](repeating: 200, count: 8 * 8 * 3)), name: "frame")
        let html = PhaseReportPage(
            title: "Phases: swing.mp4", subtitle: ["Model m.wbmodel"], video: "swing.mp4", duration: 6,
            order: ["address", "backswing", "impact", "finish"],
            phases: [
                .init(label: "address", start: 1, end: 2.5, confidence: 0.95, picture: picture),
                .init(label: "backswing", start: 2.5, end: 3.5, confidence: 0.8, picture: picture),
                .init(label: "impact", start: 3.5, end: 3.75, confidence: 0.7, picture: nil),
                .init(label: "</script>", start: 3.75, end: 5, confidence: 0.9, picture: picture),
            ]
        ).html()
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("phases.html").path
        try html.write(toFile: path, atomically: true, encoding: .utf8)
        let check = try PageCheck.run(page: path, screenshot: "synthetic-phases.png")
        XCTAssertEqual(check.consoleErrors, [])
        XCTAssertEqual(check.outsideRequests(page: path), [])
        for text in ["address", "backswing", "impact", "</script>", "Phases over time", "3.75"] {
            XCTAssertTrue(check.text.contains(text), text)
        }
    }
}
