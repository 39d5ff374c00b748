/// The page `phases --html` writes: a video's phases as a strip against time, a picture of the frame at each
/// phase's start, and a table of starts, ends and confidences. No script and no player: the page is a record.
public struct PhaseReportPage: Sendable {
    /// One phase of the video.
    public struct Phase: Sendable {
        /// The phase's label.
        public var label: String
        /// Where it starts and ends, in seconds.
        public var start: Double, end: Double
        /// The mean probability of the label over the phase's sampled frames, when known.
        public var confidence: Double?
        /// The frame at the phase's start, when kept.
        public var picture: Picture?

        /// A phase.
        public init(label: String, start: Double, end: Double, confidence: Double?, picture: Picture?) {
            self.label = label
            self.start = start
            self.end = end
            self.confidence = confidence
            self.picture = picture
        }
    }

    /// The page's title.
    public var title: String
    /// Lines under the title.
    public var subtitle: [String]
    /// The video, as given.
    public var video: String
    /// The video's length in seconds (the strip's width).
    public var duration: Double
    /// The phases' labels in their order (their colours).
    public var order: [String]
    /// The phases found.
    public var phases: [Phase]

    /// A page.
    public init(title: String, subtitle: [String], video: String, duration: Double, order: [String], phases: [Phase]) {
        self.title = title
        self.subtitle = subtitle
        self.video = video
        self.duration = duration
        self.order = order
        self.phases = phases
    }

    /// The colour of a phase: Okabe–Ito in the order's order; time outside every phase is grey.
    public func color(of label: String) -> RGBColor {
        order.firstIndex(of: label).map(CategoricalPalette.color) ?? CategoricalPalette.neutral
    }

    /// The complete HTML document.
    public func html() -> String {
        var body = PageFrame.header(title: title, subtitle: subtitle)
        body.open("main")
        body.open("section", [("class", "movie")])
        body.element("h2", [], ModelReportPage.fileName(video))
        body.element(
            "p", [("class", "explain")],
            "\(Markup.isolate(video)): \(LabelingReportPage.clock(duration)), \(Markup.count(phases.count, "phase")); grey is before the first phase and after the last."
        )
        body.open("figure")
        body.raw(strip())
        body.close("figure")
        body.element("h3", [], "At each phase's start")
        body.open("div", [("class", "changes")])
        for phase in phases {
            body.open("div", [("class", "card")])
            body.open("span", [("class", "frame")])
            if let picture = phase.picture {
                body.void(
                    "img",
                    [
                        ("src", picture.dataURI), ("alt", "\(Markup.isolate(phase.label)) starts at \(LabelingReportPage.clock(phase.start))"),
                        ("width", "\(picture.width)"), ("height", "\(picture.height)"),
                    ])
            } else {
                body.element("span", [("class", "missing")], "no picture kept")
            }
            body.close("span")
            body.open("span", [("class", "file")])
            body.void("span", [("class", "swatch"), ("style", "background:\(color(of: phase.label).css)")])
            body.close("span")
            body.name(phase.label)
            body.close("span")
            body.element("span", [("class", "time")], "\(Markup.number(phase.start, decimals: 3)) s")
            body.close("div")
        }
        body.close("div")
        body.table(
            header: ["phase", "start (s)", "end (s)", "length (s)", "confidence"],
            rows: phases.map { phase in
                [
                    phase.label, Markup.number(phase.start, decimals: 3), Markup.number(phase.end, decimals: 3),
                    Markup.number(phase.end - phase.start, decimals: 3), phase.confidence.map { Markup.number($0, decimals: 3) } ?? "–",
                ]
            },
            numericColumns: [1, 2, 3, 4])
        body.close("section")
        body.close("main")
        return PageFrame.document(title: title, body: body.text)
    }

    /// The strip: the whole video in grey, each phase a coloured segment labelled where wide enough, a time axis.
    func strip() -> String {
        let width = 1000.0, left = 10.0, right = 990.0, top = 28.0, stripHeight = 44.0
        var canvas = SVGCanvas(width: width, height: 96)
        canvas.text("Phases over time", x: left, y: 18, className: "chart-title", bold: true)
        let length = max(duration, phases.last?.end ?? 0, 1e-9)
        func x(_ second: Double) -> Double { left + (right - left) * min(max(second / length, 0), 1) }
        canvas.rectangle(
            x: left, y: top, width: right - left, height: stripHeight, fill: CategoricalPalette.neutral.css,
            title: "outside every phase")
        for phase in phases {
            let color = color(of: phase.label)
            let x0 = x(phase.start), x1 = x(phase.end)
            let confidence = phase.confidence.map { " (mean confidence \(Markup.number($0, decimals: 2)))" } ?? ""
            canvas.rectangle(
                x: x0, y: top, width: max(0.5, x1 - x0), height: stripHeight, fill: color.css,
                title:
                    "\(Markup.number(phase.start, decimals: 3))–\(Markup.number(phase.end, decimals: 3)) s \(Markup.isolate(phase.label))\(confidence)"
            )
            if x1 - x0 >= Double(phase.label.count) * 7 + 8 {
                canvas.text(
                    phase.label, x: (x0 + x1) / 2, y: top + stripHeight / 2 + 4, anchor: .middle, className: "tick",
                    fill: color.readableText.css)
            }
        }
        let axis = Axis(lower: 0, upper: length)
        for tick in axis.ticks(target: 8).filter({ $0 <= length }) {
            canvas.line(x1: x(tick), y1: top + stripHeight, x2: x(tick), y2: top + stripHeight + 6, stroke: "#222222")
            canvas.text(
                LabelingReportPage.clock(tick), x: x(tick), y: top + stripHeight + 20, anchor: tick == 0 ? .start : .middle, className: "tick")
        }
        canvas.text("time (minutes:seconds) →", x: right, y: 18, anchor: .end, className: "axis-title")
        return canvas.svg(label: "Phases over time for \(Markup.isolate(video))", className: "timeline")
    }
}
