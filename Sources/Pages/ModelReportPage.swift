import Foundation

/// The page `train` and `evaluate` write: what a model gets right and wrong, with pictures.
///
/// A plain value: `ModelReports` fills in what the run produced, and every optional part is drawn only when present
/// (a report without a testing split has no testing matrix; a model without fine-tuning has no per-epoch curves).
/// `html()` is a pure function of it.
public struct ModelReportPage: Sendable {
    /// One row of the accuracy table.
    public struct AccuracyRow: Sendable {
        public var split: String
        /// Fraction correct; nil when the split is empty.
        public var accuracy: Double?
        /// A 95 % interval, when known.
        public var interval: ClosedRange<Double>?
        public var count: Int
        /// How the number was measured (e.g. "5-fold cross-validation").
        public var note: String?

        /// A row.
        public init(split: String, accuracy: Double?, interval: ClosedRange<Double>? = nil, count: Int, note: String? = nil) {
            self.split = split
            self.accuracy = accuracy
            self.interval = interval
            self.count = count
            self.note = note
        }
    }

    /// Images per label and split.
    public struct CountsTable: Sendable {
        /// Column titles after the label, e.g. ["training", "validation", "testing"].
        public var splits: [String]
        /// `(label, counts per split)`.
        public var rows: [(label: String, counts: [Int])]

        /// A table.
        public init(splits: [String], rows: [(label: String, counts: [Int])]) {
            self.splits = splits
            self.rows = rows
        }
    }

    /// Precision, recall, F1 and support of one label.
    public struct LabelMetrics: Sendable {
        public var label: String
        public var precision: Double, recall: Double, f1: Double
        public var support: Int

        /// A row.
        public init(label: String, precision: Double, recall: Double, f1: Double, support: Int) {
            self.label = label
            self.precision = precision
            self.recall = recall
            self.f1 = f1
            self.support = support
        }
    }

    /// One image in a gallery.
    public struct GalleryImage: Sendable {
        /// The file, as the run named it.
        public var path: String
        public var truth: String
        public var predicted: String
        /// The predicted label's probability.
        public var confidence: Double
        /// The thumbnail (the network's centre crop); nil when the file could not be read again.
        public var picture: Picture?
        /// The class-activation heat map of the predicted label, laid over the thumbnail.
        public var overlay: Picture?
        /// Why there is no thumbnail.
        public var problem: String?

        /// An image.
        public init(
            path: String, truth: String, predicted: String, confidence: Double, picture: Picture? = nil,
            overlay: Picture? = nil, problem: String? = nil
        ) {
            self.path = path
            self.truth = truth
            self.predicted = predicted
            self.confidence = confidence
            self.picture = picture
            self.overlay = overlay
            self.problem = problem
        }
    }

    /// A warning line and, for duplicates, the files it names side by side.
    public struct Warning: Sendable {
        public var text: String
        public var pairs: [(first: GalleryImage, second: GalleryImage)]
        /// Pairs left out of `pairs` to keep the page small.
        public var omittedPairs: Int

        /// A warning.
        public init(text: String, pairs: [(first: GalleryImage, second: GalleryImage)] = [], omittedPairs: Int = 0) {
            self.text = text
            self.pairs = pairs
            self.omittedPairs = omittedPairs
        }
    }

    /// Held-out accuracy (and optionally log-loss) for each L2 strength tried.
    public struct L2Curve: Sendable {
        public var points: [(l2: Double, score: Double)]
        /// The strength the model uses.
        public var chosen: Double?
        /// What `score` is, e.g. "validation accuracy" or "5-fold accuracy".
        public var scoreName: String
        /// How far below the best accuracy a strength still ties with it (`L2Search.nearTieTolerance`: half the
        /// best accuracy's standard error, at least one image), when the strength was chosen by that rule.
        public var tieWidth: Double?

        /// A curve.
        public init(points: [(l2: Double, score: Double)], chosen: Double?, scoreName: String, tieWidth: Double? = nil) {
            self.points = points
            self.chosen = chosen
            self.scoreName = scoreName
            self.tieWidth = tieWidth
        }

        /// The figure's caption: what is drawn and, with `tieWidth`, why the chosen strength may not be the most
        /// accurate one (the near-tie rule of `L2Search`).
        public var caption: String {
            var text =
                "How the L2 strength was chosen: the \(scoreName) of each strength tried (higher is better); the dashed line is the one the model uses."
            if let tieWidth {
                text +=
                    " Strengths within \(Markup.percent(tieWidth)) of the best accuracy (half a standard error of it, and at least one image) "
                    + "count as tied with it, and among them the one with the lowest held-out log-loss is chosen (the larger strength on a tie): "
                    + "so a strength a little less accurate than the best can be the one chosen, since accuracy alone moves in steps of whole images."
            }
            return text
        }
    }

    /// One epoch of fine-tuning.
    public struct EpochPoint: Sendable {
        public var epoch: Int
        public var trainingLoss: Double?, validationLoss: Double?
        public var trainingAccuracy: Double?, validationAccuracy: Double?

        /// A point.
        public init(
            epoch: Int, trainingLoss: Double? = nil, validationLoss: Double? = nil, trainingAccuracy: Double? = nil,
            validationAccuracy: Double? = nil
        ) {
            self.epoch = epoch
            self.trainingLoss = trainingLoss
            self.validationLoss = validationLoss
            self.trainingAccuracy = trainingAccuracy
            self.validationAccuracy = validationAccuracy
        }
    }

    /// Predictions grouped by confidence: how often those stated as `meanConfidence` sure were right.
    public struct ReliabilityBin: Sendable {
        public var lower: Double, upper: Double
        public var count: Int
        public var meanConfidence: Double
        public var accuracy: Double

        /// A bin.
        public init(lower: Double, upper: Double, count: Int, meanConfidence: Double, accuracy: Double) {
            self.lower = lower
            self.upper = upper
            self.count = count
            self.meanConfidence = meanConfidence
            self.accuracy = accuracy
        }
    }

    /// The reliability diagram's data.
    public struct Reliability: Sendable {
        /// Which predictions, e.g. "testing images".
        public var split: String
        public var bins: [ReliabilityBin]
        /// Lines printed under the diagram (expected calibration error before and after, the temperature).
        public var notes: [String]

        /// A diagram.
        public init(split: String, bins: [ReliabilityBin], notes: [String] = []) {
            self.split = split
            self.bins = bins
            self.notes = notes
        }
    }

    /// One threshold on the top probability and what it gives (the page's copy of a `ThresholdOutcome`, which
    /// Reports' assembly fills in: the page knows no trainer).
    public struct ThresholdPoint: Sendable, Equatable {
        /// A prediction is answered when its confidence is at least this.
        public var threshold: Double
        /// Share of predictions answered, 0 to 1.
        public var answered: Double
        /// Accuracy of the answered predictions; nil when none is answered.
        public var accuracy: Double?

        /// A point.
        public init(threshold: Double, answered: Double, accuracy: Double?) {
            self.threshold = threshold
            self.answered = answered
            self.accuracy = accuracy
        }
    }

    /// The threshold curves' data.
    public struct Thresholds: Sendable {
        public var split: String
        public var points: [ThresholdPoint]
        /// The threshold the model stores (`--target-precision`), if any, with its caption.
        public var chosen: (threshold: Double, caption: String)?

        /// Curves.
        public init(split: String, points: [ThresholdPoint], chosen: (threshold: Double, caption: String)? = nil) {
            self.split = split
            self.points = points
            self.chosen = chosen
        }
    }

    /// A split's confusion matrix, per-label metrics and gallery.
    public struct SplitDetails: Sendable {
        /// Which images, as a word that goes before "images": "testing", "validation", "evaluated".
        public var name: String
        public var labels: [String]
        /// `[truth][predicted]`.
        public var confusion: [[Int]]
        public var perLabel: [LabelMetrics]
        public var macroF1: Double
        /// Misclassified images, worst (most confident) first; the thumbnails shown are the first `shown`.
        public var misclassified: [GalleryImage]
        /// How many of `misclassified` get a thumbnail (the rest are listed by name).
        public var shownMisclassified: Int
        /// A few correctly classified images per label, in `labels` order.
        public var examples: [(label: String, images: [GalleryImage])]

        /// Details of one split.
        public init(
            name: String, labels: [String], confusion: [[Int]], perLabel: [LabelMetrics], macroF1: Double,
            misclassified: [GalleryImage], shownMisclassified: Int, examples: [(label: String, images: [GalleryImage])]
        ) {
            self.name = name
            self.labels = labels
            self.confusion = confusion
            self.perLabel = perLabel
            self.macroF1 = macroF1
            self.misclassified = misclassified
            self.shownMisclassified = min(shownMisclassified, misclassified.count)
            self.examples = examples
        }
    }

    public var title: String
    /// Lines under the title (what, when, by which version).
    public var subtitle: [String]
    public var accuracy: [AccuracyRow] = []
    public var warnings: [Warning] = []
    public var details: SplitDetails?
    public var counts: CountsTable?
    public var l2Curve: L2Curve?
    public var epochs: [EpochPoint] = []
    public var reliability: Reliability?
    public var thresholds: Thresholds?
    /// Name–value lines: the settings the run used.
    public var settings: [(name: String, value: String)] = []
    /// Name–value lines: seconds per phase.
    public var timings: [(name: String, value: String)] = []
    /// Files that could not be used, and why.
    public var unreadable: [(path: String, reason: String)] = []

    /// An empty page with a title.
    public init(title: String, subtitle: [String] = []) {
        self.title = title
        self.subtitle = subtitle
    }

    /// The complete, self-contained HTML document.
    public func html() -> String {
        var body = PageFrame.header(title: title, subtitle: subtitle)
        writeNavigation(&body)
        body.open("main")
        writeAccuracy(&body)
        writeWarnings(&body)
        if let details {
            writeConfusion(&body, details)
            writeMisclassified(&body, details)
            writeExamples(&body, details)
        }
        writeFigures(&body)
        writeDataset(&body)
        writeSettings(&body)
        body.close("main")
        return PageFrame.document(title: title, body: body.text)
    }

    private var hasFigures: Bool {
        l2Curve != nil || !epochs.isEmpty || reliability != nil || thresholds != nil
    }

    private func writeNavigation(_ body: inout HTMLWriter) {
        var links = [("accuracy", "Accuracy")]
        if !warnings.isEmpty { links.append(("warnings", "Warnings")) }
        if details != nil {
            links += [("confusion", "Confusion matrix"), ("misclassified", "Misclassified"), ("examples", "Examples")]
        }
        if hasFigures { links.append(("figures", "Curves")) }
        if counts != nil { links.append(("dataset", "Dataset")) }
        if !settings.isEmpty || !timings.isEmpty { links.append(("settings", "Settings")) }
        body.open("nav", [("class", "sections")])
        for (anchor, name) in links { body.element("a", [("href", "#" + anchor)], name) }
        body.close("nav")
    }

    /// An accuracy interval as the text output prints it, "78.2–99.2 %" (`AccuracyInterval.percentText` in the head,
    /// which this module does not import; `PageTests.testThePagesIntervalIsTheTextOutputsOwn` holds them together).
    static func intervalText(_ interval: ClosedRange<Double>) -> String {
        String(format: "%.1f–%.1f %%", interval.lowerBound * 100, interval.upperBound * 100)
    }

    private func writeAccuracy(_ body: inout HTMLWriter) {
        body.open("section", [("id", "accuracy")])
        body.element("h2", [], "Accuracy")
        if let best = accuracy.last(where: { $0.accuracy != nil }), let value = best.accuracy {
            body.open("p", [("class", "headline")])
            body.write("\(best.split.capitalizedFirst): ")
            body.element("strong", [], Markup.percent(value))
            if let interval = best.interval {
                body.write(" (95 % interval \(Self.intervalText(interval)))")
            }
            body.write(" on \(Markup.count(best.count, "image")).")
            body.close("p")
        }
        let hasIntervals = accuracy.contains { $0.interval != nil }, hasNotes = accuracy.contains { $0.note != nil }
        var header = ["split", "accuracy"]
        if hasIntervals { header.append("95 % interval") }
        header.append("images")
        if hasNotes { header.append("measured by") }
        let rows = accuracy.map { row -> [String] in
            var cells = [row.split, row.accuracy.map { Markup.percent($0) } ?? "–"]
            if hasIntervals {
                cells.append(row.interval.map(Self.intervalText) ?? "–")
            }
            cells.append("\(row.count)")
            if hasNotes { cells.append(row.note ?? "") }
            return cells
        }
        body.table(header: header, rows: rows, numericColumns: Set(1..<(hasIntervals ? 4 : 3)))
        if hasIntervals {
            body.element(
                "p", [("class", "explain")],
                "The interval is the Wilson score interval: with this many images, the accuracy on new images of the same kind lies in it 95 times out of 100."
            )
        }
        body.close("section")
    }

    private func writeWarnings(_ body: inout HTMLWriter) {
        guard !warnings.isEmpty else { return }
        body.open("section", [("id", "warnings")])
        body.element("h2", [], "Warnings")
        body.open("ul", [("class", "warnings")])
        for warning in warnings {
            body.open("li")
            body.element("span", [("class", "warning-mark")], "⚠ ")
            body.write(warning.text)
            if !warning.pairs.isEmpty {
                body.open("div", [("class", "pairs")])
                for pair in warning.pairs {
                    body.open("div", [("class", "pair")])
                    writeCard(&body, pair.first, caption: .file)
                    writeCard(&body, pair.second, caption: .file)
                    body.close("div")
                }
                body.close("div")
                if warning.omittedPairs > 0 {
                    body.element("p", [("class", "more")], "and \(Markup.count(warning.omittedPairs, "more pair")) not shown")
                }
            }
            body.close("li")
        }
        body.close("ul")
        body.close("section")
    }

    private func writeConfusion(_ body: inout HTMLWriter, _ details: SplitDetails) {
        body.open("section", [("id", "confusion")])
        body.element("h2", [], "Confusion matrix and per-label scores (\(details.name))")
        body.element(
            "p", [("class", "explain")],
            "Rows are the true labels, columns what the model answered; each cell holds a count of images and is shaded by its share of the row, so a perfect model is a bright diagonal on dark."
        )
        body.open("div", [("class", "row")])
        body.open("figure")
        body.raw(
            ConfusionHeatMap(title: "Confusion matrix, \(details.name)", labels: details.labels, counts: details.confusion)
                .svg(id: "confusion-matrix"))
        body.close("figure")
        let rows = details.perLabel.map {
            [
                $0.label, Markup.number($0.precision, decimals: 3), Markup.number($0.recall, decimals: 3), Markup.number($0.f1, decimals: 3),
                "\($0.support)",
            ]
        }
        body.table(
            header: ["label", "precision", "recall", "F1", "images"], rows: rows, numericColumns: [1, 2, 3, 4],
            caption: "Per label (macro F1 \(Markup.number(details.macroF1, decimals: 3)))", classes: "per-label")
        body.close("div")
        body.close("section")
    }

    private func writeMisclassified(_ body: inout HTMLWriter, _ details: SplitDetails) {
        body.open("section", [("id", "misclassified")])
        let total = details.misclassified.count
        body.element("h2", [], "Misclassified images (\(details.name): \(total))")
        guard total > 0 else {
            body.element("p", [], "None: every \(details.name) image was labelled correctly.")
            body.close("section")
            return
        }
        body.element(
            "p", [("class", "explain")],
            "Most confident mistakes first. Each thumbnail is the square the network sees. The heat map shows where the evidence for the predicted label lies: the exact share of each of the 7 × 7 regions in that label's score (yellow is most; regions that count against it are clear). Hover over a picture to see it without the heat map."
        )
        body.void("input", [("type", "checkbox"), ("id", "show-overlays"), ("checked", "")])
        body.element("label", [("for", "show-overlays"), ("class", "toggle")], "show heat maps")
        body.open("div", [("class", "gallery")])
        for image in details.misclassified.prefix(details.shownMisclassified) { writeCard(&body, image, caption: .mistake) }
        body.close("div")
        let rest = total - details.shownMisclassified
        if rest > 0 {
            body.element("p", [("class", "more")], "\(Markup.count(rest, "more misclassified image")) without thumbnails, listed below.")
            body.open("details")
            body.element("summary", [], "All \(total) misclassified files")
            body.table(
                header: ["file", "true label", "predicted", "confidence"],
                rows: details.misclassified.map { [$0.path, $0.truth, $0.predicted, Markup.number($0.confidence, decimals: 3)] },
                numericColumns: [3])
            body.close("details")
        }
        body.close("section")
    }

    private func writeExamples(_ body: inout HTMLWriter, _ details: SplitDetails) {
        guard details.examples.contains(where: { !$0.images.isEmpty }) else { return }
        body.open("section", [("id", "examples")])
        body.element("h2", [], "What each label looks like to the model")
        body.element("p", [("class", "explain")], "The \(details.name) images of each label that the model is surest of, all labelled correctly.")
        for (label, images) in details.examples where !images.isEmpty {
            body.element("h3", [], label)
            body.open("div", [("class", "gallery")])
            for image in images { writeCard(&body, image, caption: .correct) }
            body.close("div")
        }
        body.close("section")
    }

    private func writeFigures(_ body: inout HTMLWriter) {
        guard hasFigures else { return }
        body.open("section", [("id", "figures")])
        body.element("h2", [], "Curves")
        body.open("div", [("class", "figures")])
        if let l2Curve { writeFigure(&body, svg: Self.l2Chart(l2Curve).svg(id: "l2-curve"), caption: l2Curve.caption) }
        if !epochs.isEmpty {
            let (loss, accuracy) = Self.epochCharts(epochs)
            if let loss { writeFigure(&body, svg: loss.svg(id: "epoch-loss"), caption: "Loss per epoch of fine-tuning (lower is better).") }
            if let accuracy {
                writeFigure(
                    &body, svg: accuracy.svg(id: "epoch-accuracy"),
                    caption: "Accuracy per epoch of fine-tuning; a widening gap between training and validation means overfitting.")
            }
        }
        if let reliability {
            writeFigure(
                &body, svg: Self.reliabilityChart(reliability).svg(id: "reliability"),
                caption: ([
                    "Reliability on the \(reliability.split): predictions grouped by stated confidence, against how often each group was right. Bars on the dashed diagonal mean the confidences can be taken at their word; the number at the foot of each bar is how many images it holds."
                ] + reliability.notes).joined(separator: " "))
        }
        if let thresholds {
            writeFigure(
                &body, svg: Self.thresholdChart(thresholds).svg(id: "thresholds"),
                caption:
                    "Answering only when the confidence reaches a threshold (\(thresholds.split)): the share of images answered falls, the accuracy of the answers rises."
            )
        }
        body.close("div")
        body.close("section")
    }

    private func writeFigure(_ body: inout HTMLWriter, svg: String, caption: String) {
        body.open("figure")
        body.raw(svg)
        body.element("figcaption", [], caption)
        body.close("figure")
    }

    private func writeDataset(_ body: inout HTMLWriter) {
        guard let counts else { return }
        body.open("section", [("id", "dataset")])
        body.element("h2", [], "Dataset")
        var totals = [Int](repeating: 0, count: counts.splits.count)
        for row in counts.rows { for (index, value) in row.counts.enumerated() where index < totals.count { totals[index] += value } }
        let rows = counts.rows.map { [$0.label] + $0.counts.map { "\($0)" } } + [["total"] + totals.map { "\($0)" }]
        body.table(
            header: ["label"] + counts.splits, rows: rows, numericColumns: Set(1...max(1, counts.splits.count)),
            caption: "Images per label and split")
        if !unreadable.isEmpty {
            body.element("h3", [], "Files that could not be used (\(unreadable.count))")
            body.table(header: ["file", "reason"], rows: unreadable.map { [$0.path, $0.reason] })
        }
        body.close("section")
    }

    private func writeSettings(_ body: inout HTMLWriter) {
        guard !settings.isEmpty || !timings.isEmpty else { return }
        body.open("section", [("id", "settings")])
        body.element("h2", [], "Settings and timings")
        body.open("div", [("class", "row")])
        if !settings.isEmpty { body.table(header: ["setting", "value"], rows: settings.map { [$0.name, $0.value] }, caption: "Settings") }
        if !timings.isEmpty {
            body.table(header: ["phase", "seconds"], rows: timings.map { [$0.name, $0.value] }, numericColumns: [1], caption: "Timings")
        }
        body.close("div")
        body.close("section")
    }

    private enum Caption { case mistake, correct, file }

    private func writeCard(_ body: inout HTMLWriter, _ image: GalleryImage, caption: Caption) {
        body.open("div", [("class", "card"), ("title", image.path), ("data-path", image.path)])
        body.open("div", [("class", "frame")])
        if let picture = image.picture {
            body.void(
                "img",
                [("src", picture.dataURI), ("alt", image.path), ("width", "\(picture.width)"), ("height", "\(picture.height)"), ("loading", "lazy")])
            if let overlay = image.overlay {
                body.void(
                    "img",
                    [("class", "overlay"), ("src", overlay.dataURI), ("alt", ""), ("width", "\(overlay.width)"), ("height", "\(overlay.height)")])
            }
        } else {
            body.element("div", [("class", "missing")], image.problem ?? "no thumbnail")
        }
        body.close("div")
        body.element("div", [("class", "file")], Self.fileName(image.path))
        switch caption {
        case .mistake:
            body.open("div")
            body.write("true ")
            body.open("span", [("class", "truth")])
            body.name(image.truth)
            body.close("span")
            body.close("div")
            body.open("div")
            body.write("predicted ")
            body.open("span", [("class", "predicted")])
            body.name(image.predicted)
            body.close("span")
            body.write(" (\(String(format: "%.2f", image.confidence)))")
            body.close("div")
        case .correct:
            body.open("div")
            body.name(image.predicted)
            body.write(" (\(String(format: "%.2f", image.confidence)))")
            body.close("div")
        case .file:
            body.element("div", [], image.truth)
        }
        body.close("div")
    }

    /// The last path component (the whole path stays in the card's tooltip and `data-path`).
    public static func fileName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    // MARK: Charts

    static func l2Chart(_ curve: L2Curve) -> XYChart {
        let values = curve.points.map(\.l2).filter { $0 > 0 }
        let scores = curve.points.map(\.score)
        let low = (scores.min() ?? 0), high = (scores.max() ?? 1)
        let padding = max(0.02, (high - low) * 0.15)
        var chart = XYChart(
            title: "Held-out accuracy against L2 strength",
            xAxis: Axis(lower: (values.min() ?? 0.1) / 1.5, upper: (values.max() ?? 10) * 1.5, spacing: .logarithmic, tickStyle: .powerOfTen),
            yAxis: Axis(lower: max(0, low - padding), upper: min(1, high + padding), tickStyle: .percent),
            xTitle: "L2 strength (log scale)", yTitle: curve.scoreName)
        chart.series = [
            .init(
                name: curve.scoreName, points: curve.points.filter { $0.l2 > 0 }.map { (x: $0.l2, y: $0.score) },
                color: CategoricalPalette.color(4))
        ]
        if let chosen = curve.chosen, chosen > 0 {
            chart.markers = [.init(x: chosen, caption: "chosen: \(Markup.number(chosen, decimals: 4))")]
        }
        return chart
    }

    static func epochCharts(_ epochs: [EpochPoint]) -> (loss: XYChart?, accuracy: XYChart?) {
        let first = Double(epochs.map(\.epoch).min() ?? 0), last = Double(epochs.map(\.epoch).max() ?? 1)
        let xAxis = Axis(lower: first, upper: max(last, first + 1))
        func series(_ name: String, _ value: (EpochPoint) -> Double?, _ color: Int, dashed: Bool) -> XYChart.Series? {
            let points = epochs.compactMap { point in value(point).map { (x: Double(point.epoch), y: $0) } }
            return points.isEmpty ? nil : .init(name: name, points: points, color: CategoricalPalette.color(color), dashed: dashed)
        }
        var loss: XYChart?
        let lossSeries = [series("training", \.trainingLoss, 4, dashed: true), series("validation", \.validationLoss, 5, dashed: false)].compactMap {
            $0
        }
        if !lossSeries.isEmpty {
            let values = lossSeries.flatMap { $0.points.map(\.y) }
            var chart = XYChart(
                title: "Loss per epoch", xAxis: xAxis, yAxis: Axis(lower: 0, upper: (values.max() ?? 1) * 1.1),
                xTitle: "epoch", yTitle: "cross-entropy loss")
            chart.series = lossSeries
            loss = chart
        }
        var accuracy: XYChart?
        let accuracySeries = [series("training", \.trainingAccuracy, 4, dashed: true), series("validation", \.validationAccuracy, 5, dashed: false)]
            .compactMap { $0 }
        if !accuracySeries.isEmpty {
            let values = accuracySeries.flatMap { $0.points.map(\.y) }
            var chart = XYChart(
                title: "Accuracy per epoch", xAxis: xAxis,
                yAxis: Axis(lower: max(0, (values.min() ?? 0) - 0.05), upper: 1, tickStyle: .percent),
                xTitle: "epoch", yTitle: "accuracy")
            chart.series = accuracySeries
            accuracy = chart
        }
        return (loss, accuracy)
    }

    static func reliabilityChart(_ reliability: Reliability) -> XYChart {
        var chart = XYChart(
            title: "Reliability: confidence against accuracy",
            xAxis: Axis(lower: 0, upper: 1, tickStyle: .percent), yAxis: Axis(lower: 0, upper: 1, tickStyle: .percent),
            xTitle: "stated confidence", yTitle: "share right")
        chart.bars = reliability.bins.filter { $0.count > 0 }.map { bin in
            .init(
                start: bin.lower, end: bin.upper, value: bin.accuracy, color: CategoricalPalette.color(1),
                title:
                    "confidence \(Markup.percent(bin.lower, decimals: 0))–\(Markup.percent(bin.upper, decimals: 0)): \(Markup.count(bin.count, "image")), mean confidence \(Markup.percent(bin.meanConfidence)), right \(Markup.percent(bin.accuracy))",
                note: "\(bin.count)")
        }
        chart.barsName = "share right per confidence group"
        chart.showsDiagonal = true
        return chart
    }

    static func thresholdChart(_ thresholds: Thresholds) -> XYChart {
        let values = thresholds.points.map(\.threshold)
        let lowest = min(values.min() ?? 0, 0.3), highest = max(values.max() ?? 1, 0.95)
        let floor = min(thresholds.points.compactMap(\.accuracy).min() ?? 0, thresholds.points.map(\.answered).min() ?? 0)
        var chart = XYChart(
            title: "Accuracy and share answered against the threshold",
            xAxis: Axis(lower: lowest, upper: highest, tickStyle: .percent),
            yAxis: Axis(lower: max(0, (floor * 10).rounded(.down) / 10), upper: 1, tickStyle: .percent),
            xTitle: "confidence threshold", yTitle: "share")
        chart.series = [
            .init(
                name: "accuracy of answers", points: thresholds.points.compactMap { point in point.accuracy.map { (x: point.threshold, y: $0) } },
                color: CategoricalPalette.color(4)),
            .init(
                name: "share answered", points: thresholds.points.map { (x: $0.threshold, y: $0.answered) },
                color: CategoricalPalette.color(5), dashed: true),
        ]
        if let chosen = thresholds.chosen { chart.markers = [.init(x: chosen.threshold, caption: chosen.caption)] }
        return chart
    }
}

extension String {
    /// The string with its first character upper-cased ("testing" → "Testing").
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
