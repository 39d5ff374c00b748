/// A chart of lines, points and bars over two numeric axes, drawn as SVG: the L2 curve, per-epoch curves, the
/// reliability diagram and the threshold curves are all this one drawing with different layers.
public struct XYChart: Sendable {
    /// A line (with optional dots) through points in data units.
    public struct Series: Sendable {
        public var name: String
        public var points: [(x: Double, y: Double)]
        public var color: RGBColor
        public var dashed: Bool
        public var showsPoints: Bool

        /// A series; points are drawn in the order given.
        public init(name: String, points: [(x: Double, y: Double)], color: RGBColor, dashed: Bool = false, showsPoints: Bool = true) {
            self.name = name
            self.points = points
            self.color = color
            self.dashed = dashed
            self.showsPoints = showsPoints
        }
    }

    /// A bar from `start` to `end` on the x axis and from the bottom of the y axis up to `value`.
    public struct Bar: Sendable {
        public var start: Double, end: Double, value: Double
        public var color: RGBColor
        /// Tooltip.
        public var title: String
        /// Small text in the bar, at its foot (e.g. how many images it stands for).
        public var note: String?

        /// A bar.
        public init(start: Double, end: Double, value: Double, color: RGBColor, title: String, note: String? = nil) {
            self.start = start
            self.end = end
            self.value = value
            self.color = color
            self.title = title
            self.note = note
        }
    }

    /// A vertical line at `x` with a caption, e.g. the chosen L2 strength.
    public struct Marker: Sendable {
        public var x: Double
        public var caption: String

        /// A marker.
        public init(x: Double, caption: String) {
            self.x = x
            self.caption = caption
        }
    }

    public var title: String
    public var xAxis: Axis, yAxis: Axis
    public var xTitle: String, yTitle: String
    public var series: [Series] = []
    public var bars: [Bar] = []
    /// Legend entry for the bars, when there are bars.
    public var barsName: String?
    public var markers: [Marker] = []
    /// Draws y = x (perfect calibration) as a dashed grey line.
    public var showsDiagonal = false
    public var width = 560.0, height = 340.0

    /// A chart with axes and titles; add layers through the properties.
    public init(title: String, xAxis: Axis, yAxis: Axis, xTitle: String, yTitle: String) {
        self.title = title
        self.xAxis = xAxis
        self.yAxis = yAxis
        self.xTitle = xTitle
        self.yTitle = yTitle
    }

    private static let ink = "#222222", grid = "#dddddd", diagonal = "#777777"

    /// The `<svg>` element.
    public func svg(id: String? = nil) -> String {
        var canvas = SVGCanvas(width: width, height: height)
        canvas.text(title, x: 8, y: 20, className: "chart-title", bold: true)
        var legend: [(name: String, color: RGBColor, dashed: Bool, isBar: Bool)] = series.map { ($0.name, $0.color, $0.dashed, false) }
        if let barsName, let first = bars.first { legend.insert((barsName, first.color, false, true), at: 0) }
        if showsDiagonal { legend.append(("perfect calibration", RGBColor(hex: 0x777777), true, false)) }
        let top = legend.isEmpty ? 36.0 : 56.0
        let left = 64.0, right = width - 20, bottom = height - 50
        drawLegend(&canvas, legend, y: 40, left: left)

        func x(_ value: Double) -> Double { left + xAxis.fraction(value) * (right - left) }
        func y(_ value: Double) -> Double { bottom - yAxis.fraction(value) * (bottom - top) }

        // Grid and ticks.
        let yTicks = yAxis.ticks(target: 5), xTicks = xAxis.ticks(target: 6)
        for tick in yTicks {
            canvas.line(x1: left, y1: y(tick), x2: right, y2: y(tick), stroke: Self.grid)
            canvas.text(yAxis.tickLabel(tick, among: yTicks), x: left - 6, y: y(tick) + 4, anchor: .end, className: "tick")
        }
        for tick in xTicks {
            canvas.line(x1: x(tick), y1: bottom, x2: x(tick), y2: bottom + 5, stroke: Self.ink)
            canvas.text(xAxis.tickLabel(tick, among: xTicks), x: x(tick), y: bottom + 19, anchor: .middle, className: "tick")
        }
        canvas.line(x1: left, y1: bottom, x2: right, y2: bottom, stroke: Self.ink)
        canvas.line(x1: left, y1: top, x2: left, y2: bottom, stroke: Self.ink)
        canvas.text(xTitle, x: (left + right) / 2, y: height - 10, anchor: .middle, className: "axis-title")
        canvas.text(yTitle, x: 16, y: (top + bottom) / 2, anchor: .middle, className: "axis-title", rotated: true)

        // Layers, back to front: bars, diagonal, markers, lines, points.
        for bar in bars {
            let x0 = x(bar.start), x1 = x(bar.end)
            let base = y(yAxis.lower), height = max(0, base - y(min(max(bar.value, yAxis.lower), yAxis.upper)))
            canvas.rectangle(
                x: x0 + 1, y: base - height, width: max(1, x1 - x0 - 2), height: height, fill: bar.color.css,
                opacity: 0.85, title: bar.title)
            if let note = bar.note {
                // Inside the bar at its foot (dark on the light bar colours): notes above tall bars would run into the
                // legend and the diagonal.
                canvas.text(note, x: (x0 + x1) / 2, y: base - 5, anchor: .middle, className: "note", fill: bar.color.readableText.css)
            }
        }
        if showsDiagonal {
            let low = max(xAxis.lower, yAxis.lower), high = min(xAxis.upper, yAxis.upper)
            canvas.line(x1: x(low), y1: y(low), x2: x(high), y2: y(high), stroke: Self.diagonal, width: 1.5, dashed: true)
        }
        for marker in markers {
            canvas.line(x1: x(marker.x), y1: top, x2: x(marker.x), y2: bottom, stroke: Self.ink, width: 1, dashed: true)
            let nearRight = x(marker.x) > right - 120
            canvas.text(
                marker.caption, x: x(marker.x) + (nearRight ? -4 : 4), y: top + 12,
                anchor: nearRight ? .end : .start, className: "note")
        }
        for line in series {
            let points = line.points.filter { $0.x.isFinite && $0.y.isFinite }.map { (x: x($0.x), y: y($0.y)) }
            canvas.polyline(points, stroke: line.color.css, width: 2, dashed: line.dashed)
        }
        for line in series where line.showsPoints {
            for point in line.points where point.x.isFinite && point.y.isFinite {
                canvas.circle(
                    x: x(point.x), y: y(point.y), radius: 3.5, fill: line.color.css, stroke: "#ffffff",
                    title: "\(line.name): \(xAxis.tickLabel(point.x, among: [point.x])) → \(yAxis.tickLabel(point.y, among: [point.y]))")
            }
        }
        return canvas.svg(label: title, id: id)
    }

    private func drawLegend(
        _ canvas: inout SVGCanvas, _ entries: [(name: String, color: RGBColor, dashed: Bool, isBar: Bool)],
        y: Double, left: Double
    ) {
        var x = left
        for entry in entries {
            if entry.isBar {
                canvas.rectangle(x: x, y: y - 9, width: 18, height: 10, fill: entry.color.css, opacity: 0.85)
            } else {
                canvas.line(x1: x, y1: y - 4, x2: x + 18, y2: y - 4, stroke: entry.color.css, width: 2.5, dashed: entry.dashed)
            }
            canvas.text(entry.name, x: x + 24, y: y, className: "legend")
            // Approximate text width at the legend's 12 px: 7 px per character.
            x += 24 + Double(entry.name.count) * 7 + 18
        }
    }
}
