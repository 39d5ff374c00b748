import XCTest
import _TestSupport
@testable import Pages
@testable import Reports

/// The model page and the labeling page under hostile labels and paths (issue 23, item 9): the markup is the one
/// a plain name gives (nothing injected, nothing lost), and no bidi embedding or override stands outside an
/// isolate (`<bdi>` or FSI … PDI), so "1.00" beside a U+202E label still reads "1.00".
final class HostilePageTests: XCTestCase {
    private func modelPage(_ name: String) -> String {
        let labels = [name, "second label"]
        var page = ModelReportPage(
            title: "Training report: \(Markup.isolate(name + ".wbmodel"))",
            subtitle: ["2 labels: \(labels.map(Markup.isolate).joined(separator: ", "))"])
        let mistakes = [
            ModelReportPage.GalleryImage(
                path: "testing/\(name)/\(name).png", truth: name, predicted: "second label",
                confidence: 1, picture: nil, overlay: nil),
            ModelReportPage.GalleryImage(
                path: "testing/second label/x.png", truth: "second label", predicted: name,
                confidence: 1, picture: nil, overlay: nil),
        ]
        let examples = labels.map { label in
            (
                label: label,
                images: [
                    ModelReportPage.GalleryImage(
                        path: "testing/\(label)/good.png", truth: label, predicted: label,
                        confidence: 1, picture: nil, overlay: nil)
                ]
            )
        }
        page.details = .init(
            name: "testing", labels: labels, confusion: [[3, 1], [1, 3]],
            perLabel: labels.map { .init(label: $0, precision: 1, recall: 1, f1: 1, support: 4) },
            macroF1: 1, misclassified: mistakes, shownMisclassified: 1, examples: examples)
        page.counts = .init(splits: ["training", "validation", "testing"], rows: labels.map { ($0, [4, 1, 4]) })
        return page.html()
    }

    private func labelingPage(_ name: String) -> String {
        let stretches: [LabelingReportPage.Stretch] = [
            .init(start: 0, end: 12, label: name, meanConfidence: 1),
            .init(start: 12, end: 30, label: "second label", meanConfidence: 0.5),
        ]
        let movie = LabelingReportPage.Movie(
            path: "movies/\(name).mp4", source: "movies/x.mp4", duration: 30,
            markers: [(0, name), (12, "second label")], stretches: stretches,
            changes: [.init(second: 0, label: name, picture: nil), .init(second: 12, label: "second label", picture: nil)],
            summary: [.init(label: name, meanConfidence: 1, bestWindow: (0, 5, 1), isTop: true)])
        return LabelingReportPage(title: "Labels: \(Markup.isolate(name))", labels: [name, "second label"], movies: [movie]).html()
    }

    func testPagesKeepTheirMarkupAndIsolateEveryName() {
        for (what, write) in [("model page", modelPage), ("labeling page", labelingPage)] as [(String, (String) -> String)] {
            HostileNames.check(what, count: 150, includingNUL: true) { name in
                // The plain name of the same length: the timeline writes a stretch's name only where it fits.
                let plain = HostileNames.tagSequence(write(String(repeating: "x", count: name.count)))
                return HostileNames.markupProblem(write(name), plainTags: plain)
            }
        }
    }

    func testARightToLeftOverrideCannotReverseTheConfidenceBesideIt() {
        let html = modelPage("\u{202E}cat")
        XCTAssertTrue(html.contains("<bdi>\u{2068}\u{202E}cat\u{2069}</bdi> (1.00)"), "the card's caption isolates the label from its confidence")
        XCTAssertNil(HostileNames.htmlBidiProblem(html))
    }
}
