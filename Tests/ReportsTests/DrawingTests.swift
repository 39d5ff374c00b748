import Foundation
@testable import Pages
@testable import Reports
import XCTest

/// The drawings' content: what each cell, point and segment says and where it sits.
final class DrawingTests: XCTestCase {
    /// The attributes of every `<tag …>` in `svg`, in order.
    private func elements(_ tag: String, in svg: String) -> [[String: String]] {
        let pattern = try! NSRegularExpression(pattern: "<\(tag)((?: [a-z-]+=\"[^\"]*\")*)/?>")
        let attribute = try! NSRegularExpression(pattern: " ([a-z-]+)=\"([^\"]*)\"")
        return pattern.matches(in: svg, range: NSRange(svg.startIndex..., in: svg)).map { match in
            let text = String(svg[Range(match.range(at: 1), in: svg)!])
            var values: [String: String] = [:]
            for pair in attribute.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                values[String(text[Range(pair.range(at: 1), in: text)!])] = String(text[Range(pair.range(at: 2), in: text)!])
            }
            return values
        }
    }

    func testConfusionCellsCarryTheirCountsAndRowShares() {
        let map = ConfusionHeatMap(title: "t", labels: ["cat", "dog & <wolf>"], counts: [[3, 1], [0, 4]])
        let svg = map.svg()
        XCTAssertTrue(svg.contains("dog &amp; &lt;wolf&gt;"), "labels are escaped")
        XCTAssertFalse(svg.contains("<wolf>"))
        // The four cells come first among the rectangles, row by row: shares 0.75, 0.25, 0, 1.
        let cells = elements("rect", in: svg).prefix(4)
        XCTAssertEqual(cells.map { $0["fill"] }, [0.75, 0.25, 0, 1].map { ColorScale.viridis($0).css })
        // Each label between Unicode isolates (FSI … PDI), so a right-to-left name cannot reorder the counts.
        let cat = "\u{2068}cat\u{2069}", dog = "\u{2068}dog &amp; &lt;wolf&gt;\u{2069}"
        for (count, tooltip) in zip(
            [3, 1, 0, 4],
            [
                "true \(cat), predicted \(cat): 3 images (75 % of \(cat))",
                "true \(cat), predicted \(dog): 1 image (25 % of \(cat))",
                "true \(dog), predicted \(cat): 0 images (0 % of \(dog))",
                "true \(dog), predicted \(dog): 4 images (100 % of \(dog))",
            ])
        {
            // Markup.text isolates the whole tooltip too, since it holds isolates of its own.
            XCTAssertTrue(svg.contains("<title>\u{2068}\(tooltip)\u{2069}</title>"), tooltip)
            XCTAssertTrue(svg.contains(">\(count)</text>"))
        }
    }

    func testLogarithmicChartPlacesPointsByRatio() {
        var chart = XYChart(
            title: "L2", xAxis: Axis(lower: 0.1, upper: 1000, spacing: .logarithmic, tickStyle: .powerOfTen),
            yAxis: Axis(lower: 0, upper: 1, tickStyle: .percent), xTitle: "x", yTitle: "y")
        chart.series = [.init(name: "s", points: [(x: 0.1, y: 0), (x: 1, y: 0.5), (x: 1000, y: 1)], color: RGBColor(hex: 0x0072B2))]
        let circles = elements("circle", in: chart.svg()).map { (Double($0["cx"]!)!, Double($0["cy"]!)!) }
        XCTAssertEqual(circles.count, 3)
        // 0.1 → 1 is one decade of four: a quarter of the width; y 0.5 is half-way up.
        let width = circles[2].0 - circles[0].0
        XCTAssertEqual((circles[1].0 - circles[0].0) / width, 0.25, accuracy: 1e-3)
        XCTAssertEqual((circles[0].1 - circles[1].1) / (circles[0].1 - circles[2].1), 0.5, accuracy: 1e-3)
    }

    func testTimelineSegmentsSpanTheirStretches() {
        let movie = LabelingReportPage.Movie(
            path: "m.mp4", source: "m.mp4", duration: 40, markers: [(0, "cat"), (10, "dog")],
            stretches: [
                .init(start: 0, end: 10, label: "cat", meanConfidence: 0.9),
                .init(start: 10, end: 40, label: "dog", meanConfidence: 0.8),
            ],
            changes: [])
        let page = LabelingReportPage(title: "t", labels: ["cat", "dog"], movies: [movie])
        let segments = elements("rect", in: page.timeline(movie, index: 0)).filter { $0["data-start"] != nil }
        XCTAssertEqual(segments.count, 2)
        let widths = segments.map { Double($0["width"]!)! }
        XCTAssertEqual(widths[1] / widths[0], 3, accuracy: 1e-3, "30 s against 10 s")
        XCTAssertEqual(segments.map { $0["fill"] }, [CategoricalPalette.color(0).css, CategoricalPalette.color(1).css])
    }
}
