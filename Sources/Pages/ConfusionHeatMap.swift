/// A confusion matrix as a heat map: rows are true labels, columns predicted labels, each cell shaded by its share
/// of the row (viridis: dark = none, yellow = all of that label's images) with the count written in it.
public struct ConfusionHeatMap: Sendable {
    public var title: String
    public var labels: [String]
    /// `counts[truth][predicted]`, square, in `labels` order.
    public var counts: [[Int]]

    /// A heat map of `counts` (rows truth, columns predicted).
    public init(title: String, labels: [String], counts: [[Int]]) {
        precondition(
            counts.count == labels.count && counts.allSatisfy { $0.count == labels.count },
            "ConfusionHeatMap: counts must be labels × labels")
        self.title = title
        self.labels = labels
        self.counts = counts
    }

    /// Approximate width of text at the chart's 12 px font.
    private static func textWidth(_ text: String) -> Double { Double(text.count) * 7 }

    /// The `<svg>` element.
    public func svg(id: String? = nil) -> String {
        let count = labels.count
        let longest = labels.map(Self.textWidth).max() ?? 0
        let cell = min(56, max(12, 480 / Double(max(count, 1))))
        let left = 36 + min(longest, 200) + 8
        let top = 44 + min(longest, 200) + 8
        let legendWidth = 90.0
        let width = left + cell * Double(count) + legendWidth, height = top + cell * Double(count) + 16
        var canvas = SVGCanvas(width: width, height: height)
        canvas.text(title, x: 8, y: 20, className: "chart-title", bold: true)
        canvas.text("predicted label →", x: left, y: 38, className: "axis-title")
        canvas.text("true label →", x: 18, y: top, anchor: .end, className: "axis-title", rotated: true)

        let showsCounts = cell >= 18
        for (row, label) in labels.enumerated() {
            let total = counts[row].reduce(0, +)
            let y = top + cell * Double(row)
            canvas.text(Self.shortened(label), x: left - 6, y: y + cell / 2 + 4, anchor: .end, className: "tick")
            for column in 0..<count {
                let value = counts[row][column]
                let share = total > 0 ? Double(value) / Double(total) : 0
                let color = ColorScale.viridis(share)
                let x = left + cell * Double(column)
                canvas.rectangle(
                    x: x, y: y, width: cell, height: cell, fill: color.css, stroke: "#ffffff",
                    title: "true \(Markup.isolate(label)), predicted \(Markup.isolate(labels[column])): \(Markup.count(value, "image"))"
                        + (total > 0 ? " (\(Markup.percent(share, decimals: 0)) of \(Markup.isolate(label)))" : ""))
                if showsCounts {
                    canvas.text(
                        "\(value)", x: x + cell / 2, y: y + cell / 2 + 4, anchor: .middle, className: "cell",
                        fill: color.readableText.css, bold: row == column)
                }
            }
        }
        for (column, label) in labels.enumerated() {
            let x = left + cell * Double(column) + cell / 2 + 4
            canvas.text(Self.shortened(label), x: x, y: top - 6, anchor: .start, className: "tick", rotated: true)
        }
        drawScale(&canvas, x: left + cell * Double(count) + 24, top: top, height: min(200, max(80, cell * Double(count))))
        return canvas.svg(label: title, className: "chart heatmap", id: id)
    }

    /// The colour bar: share of the row, 0 to 100 %.
    private func drawScale(_ canvas: inout SVGCanvas, x: Double, top: Double, height: Double) {
        let steps = 20
        for step in 0..<steps {
            let fraction = 1 - (Double(step) + 0.5) / Double(steps)
            canvas.rectangle(
                x: x, y: top + height * Double(step) / Double(steps), width: 14,
                height: height / Double(steps) + 0.5, fill: ColorScale.viridis(fraction).css)
        }
        canvas.text("100 %", x: x + 18, y: top + 8, className: "tick")
        canvas.text("50 %", x: x + 18, y: top + height / 2 + 4, className: "tick")
        canvas.text("0 %", x: x + 18, y: top + height, className: "tick")
        canvas.text("of the row", x: x - 2, y: top + height + 14, className: "note")
    }

    /// Labels longer than 28 characters are cut with an ellipsis in the drawing (tooltips keep the full name).
    static func shortened(_ label: String) -> String {
        label.count > 28 ? String(label.prefix(27)) + "…" : label
    }
}
