import LogisticHead
import ImageCodecs
import Reports
import XCTest
import _TestSupport

/// Whole pages: built from synthetic runs (every optional section, hostile names, a gallery over its cap, a
/// fine-tuning run's epochs that no command produces yet), checked as text and in headless Chromium.
final class PageTests: XCTestCase {
    static let labels = [
        "Bird", "Bug", "Crème brûlée 🍮", "<script>alert(1)</script>", "Fish & \"Chips\"", "Tom's", "Vehicle",
        "Eighth", "Ninth", "Tenth",
    ]

    /// A picture with enough structure to tell it from a blank one.
    static func picture(_ seed: Int) throws -> Picture {
        var pixels = [UInt8](repeating: 0, count: 64 * 64 * 3)
        for y in 0..<64 {
            for x in 0..<64 {
                let index = (y * 64 + x) * 3
                pixels[index] = UInt8((x * 4 + seed * 37) % 256)
                pixels[index + 1] = UInt8((y * 4 + seed * 11) % 256)
                pixels[index + 2] = ((x / 8 + y / 8 + seed) % 2 == 0) ? 220 : 30
            }
        }
        return try Picture.jpeg(RGBImage(width: 64, height: 64, pixels: pixels), name: "synthetic \(seed)")
    }

    /// 250 mistakes (200 with thumbnails and heat maps), examples, a duplicate pair, every curve.
    static func fullPage() throws -> (page: ModelReportPage, mistakes: [String]) {
        let labels = Self.labels
        var page = ModelReportPage(title: "Training report: <Synthetic> & co", subtitle: ["10 labels", "made by PageTests"])
        page.accuracy = [
            .init(split: "training", accuracy: 1, interval: 0.99...1, count: 4000, note: "fitted on"),
            .init(split: "validation", accuracy: 0.9, interval: 0.87...0.92, count: 800, note: "5-fold cross-validation"),
            .init(split: "testing", accuracy: 0.75, interval: 0.72...0.78, count: 1000, note: "the testing folder"),
        ]
        let overlay = try Picture.heatOverlay(values: (0..<49).map { Float($0 % 7) - 2 }, side: 7, name: "map")
        let mistakes = (0..<250).map { "testing/\(labels[$0 % 10])/image \($0) <&>.png" }
        let gallery = try mistakes.enumerated().map { index, path in
            ModelReportPage.GalleryImage(
                path: path, truth: labels[index % 10], predicted: labels[(index + 1) % 10],
                confidence: 1 - Double(index) / 500, picture: index < 200 ? try picture(index) : nil,
                overlay: index < 200 ? overlay : nil)
        }
        let examples = try labels.enumerated().map { label, name in
            (
                label: name,
                images: try (0..<4).map {
                    ModelReportPage.GalleryImage(
                        path: "testing/\(name)/good \($0).jpg", truth: name, predicted: name,
                        confidence: 0.99, picture: try picture(label * 4 + $0))
                }
            )
        }
        var confusion = [[Int]](repeating: [Int](repeating: 2, count: 10), count: 10)
        for index in 0..<10 { confusion[index][index] = 75 }
        page.details = .init(
            name: "testing", labels: labels, confusion: confusion,
            perLabel: labels.map { .init(label: $0, precision: 0.75, recall: 0.75, f1: 0.75, support: 100) },
            macroF1: 0.75, misclassified: gallery, shownMisclassified: 200, examples: examples)
        page.warnings = [
            .init(
                text: "1 identical file(s) in both training and testing data",
                pairs: [
                    (
                        ModelReportPage.GalleryImage(
                            path: "training/Bird/a.png", truth: "Bird", predicted: "", confidence: 0, picture: try picture(1)),
                        ModelReportPage.GalleryImage(
                            path: "testing/Bird/a copy.png", truth: "Bird", predicted: "", confidence: 0, picture: try picture(1))
                    )
                ]), .init(text: "'Bird' is mostly mistaken for 'Bug' (30 % of its held-out images)"),
        ]
        page.counts = .init(splits: ["training", "validation", "testing"], rows: labels.map { ($0, [400, 80, 100]) })
        page.l2Curve = .init(
            points: [(0.01, 0.8), (0.1, 0.85), (1, 0.9), (10, 0.88), (100, 0.7), (1000, 0.5), (10000, 0.3)],
            chosen: 1, scoreName: "5-fold accuracy")
        page.epochs = (1...12).map { epoch -> ModelReportPage.EpochPoint in
            let e = Double(epoch)
            return ModelReportPage.EpochPoint(
                epoch: epoch, trainingLoss: 2 / e, validationLoss: 2.2 / e + 0.02 * e,
                trainingAccuracy: 1 - 0.5 / e, validationAccuracy: 0.95 - 0.5 / e)
        }
        let bins = (0..<15).map { bin -> ModelReportPage.ReliabilityBin in
            let b = Double(bin)
            return ModelReportPage.ReliabilityBin(
                lower: b / 15, upper: (b + 1) / 15, count: bin < 3 ? 0 : 20 + bin * 3,
                meanConfidence: (b + 0.5) / 15, accuracy: min(1, (b + 0.2) / 15))
        }
        page.reliability = .init(split: "testing images", bins: bins, notes: ["Expected calibration error 0.021 after calibration (0.094 before)."])
        let points = (6...19).map { step -> ThresholdOutcome in
            let threshold = Double(step) * 0.05
            return ThresholdOutcome(threshold: threshold, answered: 1.3 - threshold, accuracy: min(1, 0.8 + threshold / 5))
        }
        page.thresholds = .init(split: "validation images", points: points, chosen: (0.7, "--target-precision 0.95"))
        page.settings = [("seed", "42"), ("L2 strength", "1")]
        page.timings = [("features", "3.2"), ("total", "4.0")]
        page.unreadable = [("testing/Bird/broken.png", "truncated or corrupt PNG data")]
        return (page, mistakes)
    }

    /// Issue 44, item 8: the headline and the table print an interval as the text output does
    /// (`AccuracyInterval.percentText`), and the L2 figure says why a less accurate strength can be chosen.
    func testIntervalsAndTheL2CaptionReadAsTheTextDoes() throws {
        var page = ModelReportPage(title: "T", subtitle: [])
        let interval = WilsonInterval.interval(successes: 21, trials: 22)
        page.accuracy = [.init(split: "testing", accuracy: 21.0 / 22, interval: interval.lower...interval.upper, count: 22)]
        page.l2Curve = .init(
            points: [(0.1, 0.9), (1, 0.95), (10, 0.94)], chosen: 10, scoreName: "held-out accuracy",
            tieWidth: L2Search.nearTieTolerance(accuracy: 0.95, count: 100))
        let html = page.html()
        XCTAssertEqual(html.components(separatedBy: "78.2–99.2 %").count - 1, 2, "the headline and the table")
        XCTAssertFalse(html.contains("78 %–99 %") || html.contains("78.2 % – 99.2 %"))
        XCTAssertTrue(
            html.contains(
                "Strengths within 1.1 % of the best accuracy (half a standard error of it, and at least one image) "
                    + "count as tied with it, and among them the one with the lowest held-out log-loss is chosen"), html)
        let untied = ModelReportPage.L2Curve(points: [(1, 0.9)], chosen: 1, scoreName: "validation accuracy")
        XCTAssertFalse(untied.caption.contains("tied"), "no rule named where none was used")
    }

    /// The page (in Pages, which imports no trainer) writes an interval as the head's `AccuracyInterval.percentText`.
    func testThePagesIntervalIsTheTextOutputsOwn() {
        for (successes, trials) in [(0, 1), (21, 22), (7, 9), (999, 1000), (50, 50)] {
            let interval = WilsonInterval.interval(successes: successes, trials: trials)
            var page = ModelReportPage(title: "T", subtitle: [])
            page.accuracy = [
                .init(split: "testing", accuracy: Double(successes) / Double(trials), interval: interval.lower...interval.upper, count: trials)
            ]
            XCTAssertTrue(page.html().contains("(95 % interval \(interval.percentText))"), "\(successes)/\(trials): \(interval.percentText)")
        }
    }

    func testTheHTMLEscapesEverythingItIsGiven() throws {
        let html = try Self.fullPage().page.html()
        XCTAssertFalse(html.contains("<script>alert(1)</script>"), "a label cannot inject markup")
        XCTAssertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        XCTAssertFalse(html.contains("<Synthetic>"))
        XCTAssertTrue(html.contains("Content-Security-Policy"))
        XCTAssertEqual(html.components(separatedBy: "<img class=\"overlay\"").count - 1, 200, "heat maps only on the 200 shown")
        XCTAssertTrue(html.contains("50 more misclassified images without thumbnails"))
        XCTAssertTrue(html.contains("id=\"epoch-loss\"") && html.contains("id=\"epoch-accuracy\""))
        var withoutEpochs = try Self.fullPage().page
        withoutEpochs.epochs = []
        XCTAssertFalse(withoutEpochs.html().contains("epoch-"), "no fine-tuning, no per-epoch figures")
    }

    func testFullPageInChromium() throws {
        let (page, mistakes) = try Self.fullPage()
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("synthetic.html").path
        try page.html().write(toFile: path, atomically: true, encoding: .utf8)
        let check = try PageCheck.run(page: path, screenshot: "synthetic-training.png")
        XCTAssertEqual(check.consoleErrors, [])
        XCTAssertEqual(check.outsideRequests(page: path), [])
        XCTAssertGreaterThan(check.distinctColors ?? 0, 5000, "a page of pictures and charts, not a blank one")
        for label in Self.labels { XCTAssertTrue(check.text.contains(label), "the page names \(label)") }
        for mistake in mistakes { XCTAssertTrue(check.text.contains(mistake) || check.dataPaths.contains(mistake), mistake) }
        for figure in [
            "Held-out accuracy against L2 strength", "Loss per epoch", "Accuracy per epoch",
            "Reliability: confidence against accuracy", "Accuracy and share answered against the threshold",
        ] {
            XCTAssertTrue(check.text.contains(figure), figure)
        }
    }

    func testLabelingPageWithoutAPlayableMovieRaisesNoErrors() throws {
        // A folder of frames has no <video>: the player script must find nothing to do, quietly.
        let stretches: [LabelingReportPage.Stretch] = [
            .init(start: 0, end: 12, label: "</script>", meanConfidence: 0.9),
            .init(start: 12, end: 30, label: "Unsure", meanConfidence: 0.4),
        ]
        let movie = LabelingReportPage.Movie(
            path: "frames/", source: nil, duration: 30, markers: [(0, "</script>"), (12, "Unsure")],
            stretches: stretches,
            changes: [
                .init(second: 0, label: "</script>", picture: try Self.picture(3)),
                .init(second: 12, label: "Unsure", picture: nil),
            ],
            summary: [.init(label: "</script>", meanConfidence: 0.6, bestWindow: (0, 5, 0.9), isTop: true)])
        let page = LabelingReportPage(title: "Labels", labels: ["</script>", "Unsure"], fallbackLabel: "Unsure", movies: [movie])
        let html = page.html()
        XCTAssertFalse(html.contains("\"</script>\""), "marker labels inside the JSON script cannot close it")
        XCTAssertEqual(page.color(of: "Unsure"), CategoricalPalette.neutral)
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("frames.html").path
        try html.write(toFile: path, atomically: true, encoding: .utf8)
        let check = try PageCheck.run(page: path, screenshot: "synthetic-labeling.png")
        XCTAssertEqual(check.consoleErrors, [])
        XCTAssertEqual(check.outsideRequests(page: path), [])
        XCTAssertTrue(check.text.contains("</script>") && check.text.contains("Unsure"))
    }
}
