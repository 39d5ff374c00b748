import DataAudit
import Foundation
import ImageCodecs
import Reports
import XCTest
import _TestSupport

/// Doctor's Explore page in headless Chromium: self-contained, every kind's gallery there, and the filter by label
/// and kind showing only what matches.
final class DoctorReportPageTests: XCTestCase {
    private func page() throws -> DoctorReportPage {
        var page = DoctorReportPage(dataset: "/data/pets", labels: ["cat", "dog", "fish"])
        let findings = """
            {"labelIssues": [{"path": "/data/pets/Training Data/dog/7.png", "split": "training", "label": "dog",
              "suggestedLabel": "cat", "confidence": 0.91, "selfConfidence": 0.04}],
             "duplicates": [{"paths": ["/data/pets/Training Data/cat/1.png", "/data/pets/Testing Data/cat/1b.png"],
              "splits": ["training", "testing"], "kind": "near", "similarity": 0.993, "leak": true},
              {"paths": ["/data/pets/Training Data/fish/2.png", "/data/pets/Training Data/fish/3.png"],
              "splits": ["training", "training"], "kind": "exact", "similarity": 1, "leak": false}],
             "outliers": [{"path": "/data/pets/Training Data/fish/9.png", "split": "training", "label": "fish", "score": 12.5,
              "meanDistance": 0.4, "neighbours": ["/data/pets/Training Data/fish/2.png"]}]}
            """
        struct Findings: Decodable {
            var labelIssues: [LabelIssue]
            var duplicates: [Duplicate]
            var outliers: [Outlier]
        }
        let decoded = try JSONDecoder().decode(Findings.self, from: Data(findings.utf8))
        (page.labelIssues, page.duplicates, page.outliers) = (decoded.labelIssues, decoded.duplicates, decoded.outliers)
        page.counts = [("cat", [10, 0, 3]), ("dog", [9, 0, 3]), ("fish", [8, 0, 2])]
        page.warnings = ["1 identical file(s) in both training and testing data"]
        // A grey square for every shown file.
        let square = RGBImage(width: 16, height: 16, pixels: [UInt8](repeating: 128, count: 16 * 16 * 3))
        for path in page.shownFiles { page.thumbnails[path] = try Picture.jpeg(square, name: path) }
        return page
    }

    func testGalleriesAndTheFilterInChromium() throws {
        let made = try page()
        XCTAssertEqual(made.shownFiles.count, 6, "each file once: \(made.shownFiles)")
        let html = made.html()
        XCTAssertNil(HostileNames.htmlBidiProblem(html))
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("explore.html").path
        try html.write(toFile: path, atomically: true, encoding: .utf8)
        let visible =
            "Array.from(document.querySelectorAll('.finding')).filter(e => getComputedStyle(e).display !== 'none').map(e => e.getAttribute('data-kind'))"
        let check = try PageCheck.run(
            page: path, screenshot: "doctor-explore.png",
            evaluate: [
                visible,
                "(() => { const s = document.getElementById('filter-label'); s.value = 'cat'; s.dispatchEvent(new Event('change')); return \(visible); })()",
                "(() => { const s = document.getElementById('filter-label'); s.value = ''; s.dispatchEvent(new Event('change')); const k = document.querySelector('.filter-kind[value=copy]'); k.checked = false; k.dispatchEvent(new Event('change')); return \(visible); })()",
            ])
        XCTAssertEqual(check.consoleErrors, [])
        XCTAssertEqual(check.outsideRequests(page: path), [])
        XCTAssertEqual(check.evaluations.count, 3)
        XCTAssertEqual(check.evaluations.first, .strings(["copy", "copy", "label", "outlier"]))
        // "cat": the near-copy (its pictures are cats) and the dog picture that looks like a cat.
        XCTAssertEqual(check.evaluations.dropFirst().first, .strings(["copy", "label"]))
        XCTAssertEqual(check.evaluations.last, .strings(["label", "outlier"]))
        for text in ["Copies (2)", "Likely in the wrong folder (1)", "Outliers (1)", "looks like cat, 91.0 %", "near 0.993 · leak", "score 12.5"] {
            XCTAssertTrue(check.text.contains(text), "the page shows '\(text)'")
        }
    }
}
