/// Builds one inline SVG drawing in user units (`viewBox 0 0 width height`); text is escaped here.
///
/// The drawing scales with the page (`width: 100%` up to `width` CSS pixels), so sizes below are in CSS pixels at
/// full size. Text uses the page's font through `class`es that the report's style sheet defines.
public struct SVGCanvas: Sendable {
    /// Horizontal alignment of text at its anchor.
    public enum Anchor: String, Sendable {
        case start, middle, end
    }

    /// Drawing width and height in user units.
    public let width: Double, height: Double
    private var body = ""

    /// An empty drawing of `width × height`.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    private static func n(_ value: Double) -> String { Markup.number(value, decimals: 2) }

    private static func attributes(_ pairs: [(String, String?)]) -> String {
        pairs.compactMap { name, value in value.map { " \(name)=\"\(Markup.escape($0))\"" } }.joined()
    }

    /// A rectangle; `title` becomes a tooltip.
    public mutating func rectangle(
        x: Double, y: Double, width: Double, height: Double, fill: String,
        stroke: String? = nil, opacity: Double? = nil, title: String? = nil,
        extra: [(String, String?)] = []
    ) {
        let common = Self.attributes(
            [
                ("x", Self.n(x)), ("y", Self.n(y)), ("width", Self.n(max(0, width))),
                ("height", Self.n(max(0, height))), ("fill", fill), ("stroke", stroke),
                ("fill-opacity", opacity.map { Self.n($0) }),
            ] + extra)
        if let title {
            body += "<rect\(common)><title>\(Markup.text(title))</title></rect>"
        } else {
            body += "<rect\(common)/>"
        }
    }

    /// A straight line.
    public mutating func line(
        x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1,
        dashed: Bool = false, extra: [(String, String?)] = []
    ) {
        body +=
            "<line\(Self.attributes([("x1", Self.n(x1)), ("y1", Self.n(y1)), ("x2", Self.n(x2)), ("y2", Self.n(y2)), ("stroke", stroke), ("stroke-width", Self.n(width)), ("stroke-dasharray", dashed ? "5 4" : nil)] + extra))/>"
    }

    /// An open polyline through `points`.
    public mutating func polyline(_ points: [(x: Double, y: Double)], stroke: String, width: Double = 2, dashed: Bool = false) {
        guard points.count >= 2 else { return }
        let list = points.map { "\(Self.n($0.x)),\(Self.n($0.y))" }.joined(separator: " ")
        body +=
            "<polyline\(Self.attributes([("points", list), ("fill", "none"), ("stroke", stroke), ("stroke-width", Self.n(width)), ("stroke-linejoin", "round"), ("stroke-dasharray", dashed ? "6 4" : nil)]))/>"
    }

    /// A filled circle; `title` becomes a tooltip.
    public mutating func circle(x: Double, y: Double, radius: Double, fill: String, stroke: String? = nil, title: String? = nil) {
        let common = Self.attributes([("cx", Self.n(x)), ("cy", Self.n(y)), ("r", Self.n(radius)), ("fill", fill), ("stroke", stroke)])
        if let title {
            body += "<circle\(common)><title>\(Markup.text(title))</title></circle>"
        } else {
            body += "<circle\(common)/>"
        }
    }

    /// Text at (x, y) (the baseline); `rotated` turns it −90° about its anchor (for vertical axis titles).
    public mutating func text(
        _ content: String, x: Double, y: Double, anchor: Anchor = .start, className: String? = nil,
        fill: String? = nil, rotated: Bool = false, bold: Bool = false
    ) {
        let transform = rotated ? "rotate(-90 \(Self.n(x)) \(Self.n(y)))" : nil
        body +=
            "<text\(Self.attributes([("x", Self.n(x)), ("y", Self.n(y)), ("text-anchor", anchor.rawValue), ("class", className), ("fill", fill), ("font-weight", bold ? "bold" : nil), ("transform", transform)]))>\(Markup.text(content))</text>"
    }

    /// Starts a group (`<g>`) with the given attributes; close it with `endGroup`.
    public mutating func beginGroup(_ attributes: [(String, String?)]) {
        body += "<g\(Self.attributes(attributes))>"
    }

    /// Ends the innermost group.
    public mutating func endGroup() {
        body += "</g>"
    }

    /// The `<svg>` element. `label` is read by screen readers (`role="img"`, `aria-label`).
    public func svg(label: String, className: String = "chart", id: String? = nil) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\"\(Self.attributes([("class", className), ("id", id), ("viewBox", "0 0 \(Self.n(width)) \(Self.n(height))"), ("width", Self.n(width)), ("height", Self.n(height)), ("role", "img"), ("aria-label", label)]))>"
            + "<title>\(Markup.text(label))</title>\(body)</svg>"
    }
}
