/// The page a detector's training or evaluation writes: mAP@0.5 and mAP@0.5:0.95 overall and per label, precision
/// and recall at the score threshold `detect` uses, each label's precision–recall curve, and the testing pictures
/// with their true and predicted boxes drawn on them, the worst pictures first. A plain value; `html()` is pure.
public struct DetectorReportPage: Sendable {
    /// One label's numbers.
    public struct LabelRow: Sendable {
        /// The label.
        public var label: String
        /// Its objects and its candidate boxes (at any score, which the APs rank) in the testing pictures.
        public var objects: Int, predictions: Int
        /// Its boxes at or above the page's threshold: what `detect` reports.
        public var reported: Int
        /// AP at IoU 0.5 and averaged over IoU 0.5:0.95; nil when the label has no object to find.
        public var averagePrecision50: Double?, averagePrecision: Double?
        /// Precision and recall of the boxes at or above the page's threshold; precision is nil when there is none
        /// (undefined, shown as a dash).
        public var precision: Double?, recall: Double
        /// Interpolated precision at recall 0, 0.01 … 1 (101 values) at IoU 0.5, as COCO computes it; nil without
        /// objects.
        public var precisionCurve: [Double]?

        /// A row from its parts.
        public init(
            label: String, objects: Int, predictions: Int, reported: Int, averagePrecision50: Double?,
            averagePrecision: Double?, precision: Double?, recall: Double, precisionCurve: [Double]?
        ) {
            self.label = label
            self.objects = objects
            self.predictions = predictions
            self.reported = reported
            self.averagePrecision50 = averagePrecision50
            self.averagePrecision = averagePrecision
            self.precision = precision
            self.recall = recall
            self.precisionCurve = precisionCurve
        }
    }

    /// A box to draw on a picture, in the picture's (thumbnail's) pixels.
    public struct Box: Sendable {
        /// What the box is.
        public enum Kind: Sendable {
            /// An object, found by a reported box (or not).
            case object(found: Bool)
            /// A reported box (score at or above the threshold) that found an object (or not: a false positive).
            case prediction(score: Double, correct: Bool)
        }

        /// The label.
        public var label: String
        /// Edges in the picture's pixels.
        public var left: Double, top: Double, right: Double, bottom: Double
        /// What it is.
        public var kind: Kind

        /// A box from its parts.
        public init(label: String, left: Double, top: Double, right: Double, bottom: Double, kind: Kind) {
            self.label = label
            self.left = left
            self.top = top
            self.right = right
            self.bottom = bottom
            self.kind = kind
        }
    }

    /// One testing picture.
    public struct PictureCard: Sendable {
        /// The file, as given.
        public var file: String
        /// The picture (scaled down), or nil when it could not be read again (the card says so).
        public var picture: Picture?
        /// Its size in the picture's pixels, the boxes' coordinate system.
        public var width: Int, height: Int
        /// The boxes to draw.
        public var boxes: [Box]

        /// A card from its parts.
        public init(file: String, picture: Picture?, width: Int, height: Int, boxes: [Box]) {
            self.file = file
            self.picture = picture
            self.width = width
            self.height = height
            self.boxes = boxes
        }

        /// Objects no reported box found.
        public var missed: Int {
            boxes.filter { if case .object(found: false) = $0.kind { return true } else { return false } }.count
        }
        /// Reported boxes that found no object.
        public var falsePositives: Int {
            boxes.filter { if case .prediction(_, correct: false) = $0.kind { return true } else { return false } }.count
        }
    }

    /// The page's title.
    public var title: String
    /// Lines under the title.
    public var subtitle: [String]
    /// The score threshold the precision, recall and drawn boxes use.
    public var threshold: Double
    /// mAP@0.5 and mAP@0.5:0.95 over the labels with objects; nil when no label has any.
    public var meanAveragePrecision50: Double?, meanAveragePrecision: Double?
    /// Precision and recall over all labels at the threshold, and their objects; precision is nil when no box
    /// reaches the threshold.
    public var precision: Double?, recall: Double, objects: Int
    /// One row per label, in the model's order (their colours).
    public var labels: [LabelRow]
    /// The pictures to show, worst first (the caller orders and caps them).
    public var pictures: [PictureCard]
    /// Testing pictures left out of the gallery (beyond its cap), all of them without a mistake or with fewer
    /// than the last shown.
    public var picturesLeftOut: Int
    /// How the detector was trained (curves, dataset, settings, a warning), for a training run's page; nil on an
    /// evaluation's.
    public var training: DetectorTrainingSection?

    /// A page.
    public init(
        title: String, subtitle: [String], threshold: Double, meanAveragePrecision50: Double?,
        meanAveragePrecision: Double?, precision: Double?, recall: Double, objects: Int, labels: [LabelRow],
        pictures: [PictureCard], picturesLeftOut: Int
    ) {
        self.title = title
        self.subtitle = subtitle
        self.threshold = threshold
        self.meanAveragePrecision50 = meanAveragePrecision50
        self.meanAveragePrecision = meanAveragePrecision
        self.precision = precision
        self.recall = recall
        self.objects = objects
        self.labels = labels
        self.pictures = pictures
        self.picturesLeftOut = picturesLeftOut
    }

    /// A label's colour: Okabe–Ito in the labels' order.
    public func color(of label: String) -> RGBColor {
        labels.firstIndex { $0.label == label }.map(CategoricalPalette.color) ?? CategoricalPalette.neutral
    }

    /// What an average precision or a precision reads as: a percentage, or a dash when it is undefined (nothing
    /// to find, or no box reported).
    static func share(_ value: Double?) -> String { value.map { Markup.percent($0) } ?? "—" }

    /// Candidate boxes of every label at any score.
    public var candidates: Int { labels.reduce(0) { $0 + $1.predictions } }
    /// Boxes of every label at or above the threshold.
    public var reported: Int { labels.reduce(0) { $0 + $1.reported } }

    /// The complete HTML document.
    public func html() -> String {
        var body = PageFrame.header(title: title, subtitle: subtitle)
        body.open("main")

        body.open("section", [("id", "summary")])
        training?.writeWarnings(&body)
        body.element("h2", [], "How well it finds the objects")
        body.open("p", [("class", "headline")])
        body.write("mAP@0.5 ")
        body.element("strong", [], Self.share(meanAveragePrecision50))
        body.write(" · mAP@0.5:0.95 ")
        body.element("strong", [], Self.share(meanAveragePrecision))
        body.close("p")
        body.element(
            "p", [("class", "explain")],
            "At a score of \(Markup.number(threshold, decimals: 3)) or more (the threshold detect uses by default): \(Markup.count(reported, "box", plural: "boxes")), precision \(Self.share(precision)), recall \(Markup.percent(recall)) of \(Markup.count(objects, "object")). A box finds an object when they overlap by at least half their union (IoU 0.5) and have the same label; AP is computed as COCO's evaluation computes it, ranking all \(Markup.count(candidates, "candidate box", plural: "candidate boxes")) at any score. A dash: nothing to find (AP) or no box at the threshold (precision)."
        )
        body.table(
            header: ["label", "objects", "boxes at the threshold", "AP@0.5", "AP@0.5:0.95", "precision", "recall"],
            rows: labels.map { row in
                [
                    row.label, "\(row.objects)", "\(row.reported)", Self.share(row.averagePrecision50),
                    Self.share(row.averagePrecision), Self.share(row.precision), Markup.percent(row.recall),
                ]
            },
            numericColumns: [1, 2, 3, 4, 5, 6], caption: "Per label, on the testing pictures")
        if let chart = curveChart() {
            body.open("figure")
            body.raw(chart.svg(id: "precision-recall"))
            body.close("figure")
        }
        body.close("section")
        training?.writeCurvesAndDataset(&body, labels: labels.map(\.label))

        body.open("section", [("id", "pictures")])
        body.element("h2", [], "Testing pictures, worst first")
        body.element(
            "p", [("class", "explain")],
            "Dashed: the objects in the annotations (green when a box found them, red when none did). Solid: the boxes the detector reported at the threshold, in the label's colour with its score; a red cross marks a box that found no object. Pictures with the most misses and false boxes come first.\(picturesLeftOut > 0 ? " \(Markup.count(picturesLeftOut, "more picture")) with fewer mistakes are not shown." : "")"
        )
        body.open("div", [("class", "detections")])
        for card in pictures {
            body.open("div", [("class", "card")])
            body.open("span", [("class", "boxed"), ("style", "aspect-ratio: \(max(card.width, 1)) / \(max(card.height, 1))")])
            if let picture = card.picture {
                body.void(
                    "img",
                    [
                        ("src", picture.dataURI), ("alt", "\(Markup.isolate(card.file)) with its boxes"),
                        ("width", "\(picture.width)"), ("height", "\(picture.height)"),
                    ])
            } else {
                body.element("span", [("class", "missing")], "picture could not be read again")
            }
            body.raw(boxes(card))
            body.close("span")
            body.open("span", [("class", "file")])
            body.name(ModelReportPage.fileName(card.file))
            body.close("span")
            let (missed, wrong) = (card.missed, card.falsePositives)
            body.element(
                "span", [("class", missed + wrong == 0 ? "truth" : "predicted")],
                missed + wrong == 0 ? "all found, no false box" : "\(missed) missed, \(wrong) false box\(wrong == 1 ? "" : "es")")
            body.close("div")
        }
        body.close("div")
        body.close("section")
        training?.writeSettings(&body)
        body.close("main")
        return PageFrame.document(title: title, body: body.text)
    }

    /// One picture's boxes as an SVG laid over it, in the picture's own pixels.
    func boxes(_ card: PictureCard) -> String {
        let width = Double(max(card.width, 1)), height = Double(max(card.height, 1))
        var canvas = SVGCanvas(width: width, height: height)
        // A card shows the picture about 300 CSS pixels wide whatever its size: lines of 1.5 and text of 12 such
        // pixels, in the picture's units.
        let unit = width / 300, stroke = 1.5 * unit, fontSize = 12 * unit
        canvas.beginGroup([("font-size", Markup.number(fontSize, decimals: 1))])
        for box in card.boxes {
            let (x, y, w, h) = (box.left, box.top, box.right - box.left, box.bottom - box.top)
            switch box.kind {
            case .object(let found):
                let color = found ? "#1a7f37" : "#b3261e"
                canvas.rectangle(
                    x: x, y: y, width: w, height: h, fill: "none", stroke: color,
                    title: "\(Markup.isolate(box.label)): \(found ? "found" : "missed")",
                    extra: [
                        ("stroke-width", Markup.number(stroke, decimals: 2)),
                        ("stroke-dasharray", "\(Markup.number(3 * stroke, decimals: 2)) \(Markup.number(2 * stroke, decimals: 2))"),
                    ])
            case .prediction(let score, let correct):
                let color = color(of: box.label)
                canvas.rectangle(
                    x: x, y: y, width: w, height: h, fill: "none", stroke: color.css,
                    title: "\(Markup.isolate(box.label)) \(Markup.number(score, decimals: 3))\(correct ? "" : ": found no object")",
                    extra: [("stroke-width", Markup.number(2 * stroke, decimals: 2))])
                let caption = "\(box.label) \(Markup.number(score, decimals: 2))"
                let captionWidth = Double(caption.count) * fontSize * 0.6 + 4
                let captionTop = y >= fontSize + 2 ? y - fontSize - 2 : y
                canvas.rectangle(x: x, y: captionTop, width: captionWidth, height: fontSize + 2, fill: color.css)
                canvas.text(caption, x: x + 2, y: captionTop + fontSize - 1, fill: color.readableText.css)
                if !correct {
                    let size = min(w, h, 4 * fontSize) / 3
                    let (cx, cy) = (x + w - size - stroke, y + h - size - stroke)
                    canvas.line(x1: cx, y1: cy, x2: cx + size, y2: cy + size, stroke: "#b3261e", width: 2 * stroke)
                    canvas.line(x1: cx + size, y1: cy, x2: cx, y2: cy + size, stroke: "#b3261e", width: 2 * stroke)
                }
            }
        }
        canvas.endGroup()
        return canvas.svg(label: "Boxes on \(Markup.isolate(card.file))", className: "boxes")
    }

    /// Precision against recall at IoU 0.5, one line per label with objects.
    func curveChart() -> XYChart? {
        let series: [XYChart.Series] = labels.compactMap { row in
            guard let curve = row.precisionCurve, curve.count > 1 else { return nil }
            let last = Double(curve.count - 1)
            return .init(
                name: row.label, points: curve.enumerated().map { (x: Double($0.offset) / last, y: $0.element) },
                color: color(of: row.label), showsPoints: false)
        }
        guard !series.isEmpty else { return nil }
        var chart = XYChart(
            title: "Precision against recall (IoU 0.5)", xAxis: Axis(lower: 0, upper: 1, tickStyle: .percent),
            yAxis: Axis(lower: 0, upper: 1, tickStyle: .percent), xTitle: "recall", yTitle: "precision")
        chart.series = series
        return chart
    }
}
