import FileFormats
import Foundation

/// The page `label --html` writes: per movie, its labels against time, a picture at each change, and a player
/// that shows the current label and announces the next one ahead of time, as the children's player does.
public struct LabelingReportPage: Sendable {
    /// A stretch of the movie with one label, from `start` up to `end` seconds.
    public struct Stretch: Sendable, Equatable {
        public var start: Double, end: Double
        public var label: String
        /// Mean probability of the label over the stretch's frames.
        public var meanConfidence: Double

        /// A stretch.
        public init(start: Double, end: Double, label: String, meanConfidence: Double) {
            self.start = start
            self.end = end
            self.label = label
            self.meanConfidence = meanConfidence
        }
    }

    /// A point where the label changes, with the frame there.
    public struct Change: Sendable {
        public var second: Double
        public var label: String
        public var picture: Picture?

        /// A change.
        public init(second: Double, label: String, picture: Picture?) {
            self.second = second
            self.label = label
            self.picture = picture
        }
    }

    /// One row of the per-label score summary (`--summary`).
    public struct SummaryRow: Sendable {
        public var label: String
        public var meanConfidence: Double
        public var bestWindow: (start: Double, end: Double, meanConfidence: Double)?
        public var isTop: Bool

        /// A row.
        public init(label: String, meanConfidence: Double, bestWindow: (start: Double, end: Double, meanConfidence: Double)?, isTop: Bool) {
            self.label = label
            self.meanConfidence = meanConfidence
            self.bestWindow = bestWindow
            self.isTop = isTop
        }
    }

    /// One labelled movie.
    public struct Movie: Sendable {
        /// The movie as the user named it.
        public var path: String
        /// The `<video>` source relative to the page (percent-encoded); nil for a folder of frames.
        public var source: String?
        /// Seconds.
        public var duration: Double
        /// The player's markers: whole second → label, in time order.
        public var markers: [(second: Int, label: String)]
        /// The markers as stretches, covering 0…duration.
        public var stretches: [Stretch]
        public var changes: [Change]
        /// Changes without a picture because the page keeps at most so many.
        public var omittedChanges: Int
        /// `--summary`'s table, when asked for.
        public var summary: [SummaryRow]?
        /// The window length of the summary.
        public var windowSeconds: Double

        /// A movie.
        public init(
            path: String, source: String?, duration: Double, markers: [(second: Int, label: String)], stretches: [Stretch],
            changes: [Change], omittedChanges: Int = 0, summary: [SummaryRow]? = nil, windowSeconds: Double = 5
        ) {
            self.path = path
            self.source = source
            self.duration = duration
            self.markers = markers
            self.stretches = stretches
            self.changes = changes
            self.omittedChanges = omittedChanges
            self.summary = summary
            self.windowSeconds = windowSeconds
        }
    }

    public var title: String
    public var subtitle: [String]
    /// Every label that can appear, in the order that fixes their colours (the model's, then the fallback).
    public var labels: [String]
    /// The label drawn in neutral grey (the fallback for unsure frames), if any.
    public var fallbackLabel: String?
    /// How long before a marker the player announces it.
    public var leadSeconds: Double = 5
    public var movies: [Movie]

    /// A page.
    public init(title: String, subtitle: [String] = [], labels: [String], fallbackLabel: String? = nil, movies: [Movie]) {
        self.title = title
        self.subtitle = subtitle
        self.labels = labels
        self.fallbackLabel = fallbackLabel
        self.movies = movies
    }

    /// The colour of `label`: Okabe–Ito in `labels` order, grey for the fallback.
    public func color(of label: String) -> RGBColor {
        if label == fallbackLabel { return CategoricalPalette.neutral }
        guard let index = labels.firstIndex(of: label) else { return CategoricalPalette.neutral }
        let position = labels[..<index].filter { $0 != fallbackLabel }.count
        return CategoricalPalette.color(position)
    }

    /// The complete HTML document; the script drives the players (no network, no other file but the movies).
    public func html() -> String {
        var body = PageFrame.header(title: title, subtitle: subtitle)
        body.open("main")
        writeLegend(&body)
        for (index, movie) in movies.enumerated() { writeMovie(&body, movie, index: index) }
        body.close("main")
        return PageFrame.document(title: title, body: body.text, script: Self.script, allowsMedia: movies.contains { $0.source != nil })
    }

    private func writeLegend(_ body: inout HTMLWriter) {
        body.open("div", [("class", "legend-row"), ("aria-label", "label colours")])
        for label in labels {
            body.open("span")
            body.void("span", [("class", "swatch"), ("style", "background:\(color(of: label).css)")])
            body.close("span")
            body.name(label)
            body.close("span")
        }
        body.close("div")
    }

    private func writeMovie(_ body: inout HTMLWriter, _ movie: Movie, index: Int) {
        body.open("section", [("id", "movie-\(index)"), ("class", "movie"), ("data-movie", "\(index)")])
        body.element("h2", [], ModelReportPage.fileName(movie.path))
        body.element(
            "p", [("class", "explain")],
            "\(Markup.isolate(movie.path)): \(Self.clock(movie.duration)), \(Markup.count(movie.markers.count, "marker")), \(Markup.count(max(0, movie.stretches.count - 1), "change")) of label."
        )
        if let source = movie.source {
            body.open("div", [("class", "player")])
            body.open("div")
            body.open(
                "video",
                [
                    ("src", source), ("controls", ""), ("preload", "auto"), ("muted", ""), ("playsinline", ""),
                    ("data-movie", "\(index)"),
                ])
            body.write("This browser cannot play \(Markup.isolate(movie.path)).")
            body.close("video")
            body.close("div")
            body.open("div")
            body.element("div", [("class", "explain")], "Now showing")
            body.element("div", [("class", "now"), ("id", "now-\(index)")], movie.markers.first?.label ?? "–")
            body.element("div", [("class", "next"), ("id", "next-\(index)")], "")
            body.element(
                "p", [("class", "explain")],
                "Like the player, the next label is announced \(Markup.number(leadSeconds, decimals: 1)) s before its marker. Click the timeline to jump."
            )
            body.close("div")
            body.close("div")
        }
        body.open("figure")
        body.raw(timeline(movie, index: index))
        body.close("figure")
        // The markers for the script, as JSON that cannot close the script element.
        let markers = ScriptMarkers(
            lead: .init(Markup.number(leadSeconds, decimals: 3)), duration: .init(Markup.number(movie.duration, decimals: 3)),
            markers: movie.markers.map { .init(second: $0.second, label: Markup.isolate($0.label)) })
        // Numbers and strings in fixed containers: the line layout has nothing that can fail.
        let json = (try? JSONWriter.text(markers, layout: .scriptLine)) ?? "{}"
        body.raw("<script type=\"application/json\" id=\"markers-\(index)\">\(json)</script>")
        writeChanges(&body, movie, index: index)
        writeStretches(&body, movie)
        if let summary = movie.summary { writeSummary(&body, summary, window: movie.windowSeconds) }
        body.close("section")
    }

    /// The label strip: one coloured segment per stretch, labelled where wide enough, with a time axis and a
    /// playhead the script moves.
    func timeline(_ movie: Movie, index: Int) -> String {
        let width = 1000.0, left = 10.0, right = 990.0, top = 28.0, stripHeight = 44.0
        var canvas = SVGCanvas(width: width, height: 96)
        canvas.text("Labels over time", x: left, y: 18, className: "chart-title", bold: true)
        let duration = max(movie.duration, 1e-9)
        func x(_ second: Double) -> Double { left + (right - left) * min(max(second / duration, 0), 1) }
        for stretch in movie.stretches {
            let color = color(of: stretch.label)
            let x0 = x(stretch.start), x1 = x(stretch.end)
            canvas.rectangle(
                x: x0, y: top, width: max(0.5, x1 - x0), height: stripHeight, fill: color.css,
                title:
                    "\(Self.clock(stretch.start))–\(Self.clock(stretch.end)) \(Markup.isolate(stretch.label)) (mean confidence \(Markup.number(stretch.meanConfidence, decimals: 2)))",
                extra: [("data-start", Markup.number(stretch.start, decimals: 3))])
            if x1 - x0 >= Double(stretch.label.count) * 7 + 8 {
                canvas.text(
                    stretch.label, x: (x0 + x1) / 2, y: top + stripHeight / 2 + 4, anchor: .middle, className: "tick",
                    fill: color.readableText.css)
            }
        }
        let axis = Axis(lower: 0, upper: duration)
        let ticks = axis.ticks(target: 8).filter { $0 <= duration }
        for tick in ticks {
            canvas.line(x1: x(tick), y1: top + stripHeight, x2: x(tick), y2: top + stripHeight + 6, stroke: "#222222")
            canvas.text(Self.clock(tick), x: x(tick), y: top + stripHeight + 20, anchor: tick == 0 ? .start : .middle, className: "tick")
        }
        canvas.text("time (minutes:seconds) →", x: right, y: 18, anchor: .end, className: "axis-title")
        canvas.line(
            x1: left, y1: top - 4, x2: left, y2: top + stripHeight + 4, stroke: "#000000", width: 2,
            extra: [("id", "playhead-\(index)"), ("class", "playhead")])
        return canvas.svg(label: "Labels over time for \(Markup.isolate(movie.path))", className: "timeline", id: "timeline-\(index)")
            .replacingFirst(
                "<svg ",
                with:
                    "<svg data-movie=\"\(index)\" data-duration=\"\(Markup.number(duration, decimals: 3))\" data-left=\"\(left)\" data-right=\"\(right)\" "
            )
    }

    private func writeChanges(_ body: inout HTMLWriter, _ movie: Movie, index: Int) {
        guard !movie.changes.isEmpty else { return }
        body.element("h3", [], "At each change")
        body.open("div", [("class", "changes")])
        for change in movie.changes {
            body.open("div", [("class", "card")])
            body.open(
                "button",
                [
                    ("type", "button"), ("data-seek", Markup.number(change.second, decimals: 3)), ("data-movie", "\(index)"),
                    ("title", "play from \(Self.clock(change.second))"),
                ])
            body.open("span", [("class", "frame")])
            if let picture = change.picture {
                body.void(
                    "img",
                    [
                        ("src", picture.dataURI), ("alt", "\(Markup.isolate(change.label)) at \(Self.clock(change.second))"),
                        ("width", "\(picture.width)"), ("height", "\(picture.height)"), ("loading", "lazy"),
                    ])
            } else {
                body.element("span", [("class", "missing")], "no picture kept")
            }
            body.close("span")
            body.open("span", [("class", "file")])
            body.void("span", [("class", "swatch"), ("style", "background:\(color(of: change.label).css)")])
            body.close("span")
            body.name(change.label)
            body.close("span")
            body.element("span", [("class", "time")], Self.clock(change.second))
            body.close("button")
            body.close("div")
        }
        body.close("div")
        if movie.omittedChanges > 0 {
            body.element("p", [("class", "more")], "and \(Markup.count(movie.omittedChanges, "more change")) without a picture")
        }
    }

    private func writeStretches(_ body: inout HTMLWriter, _ movie: Movie) {
        body.open("details")
        body.element("summary", [], "All \(movie.stretches.count) labelled stretches")
        body.table(
            header: ["label", "from", "to", "mean confidence"],
            rows: movie.stretches.map { [$0.label, Self.clock($0.start), Self.clock($0.end), Markup.number($0.meanConfidence, decimals: 3)] },
            numericColumns: [1, 2, 3])
        body.close("details")
    }

    private func writeSummary(_ body: inout HTMLWriter, _ rows: [SummaryRow], window: Double) {
        body.element("h3", [], "Scores")
        let windowName = "best \(Markup.number(window, decimals: 1)) s window"
        body.table(
            header: ["label", "mean confidence", windowName, "its mean"],
            rows: rows.map { row in
                [
                    row.isTop ? "\(Markup.isolate(row.label)) (top)" : row.label, Markup.number(row.meanConfidence, decimals: 3),
                    row.bestWindow.map { "\(Self.clock($0.start))–\(Self.clock($0.end))" } ?? "–",
                    row.bestWindow.map { Markup.number($0.meanConfidence, decimals: 3) } ?? "–",
                ]
            },
            numericColumns: [1, 3], classes: "summary")
    }

    /// `m:ss` (or `h:mm:ss`), with tenths when the time is not whole.
    static func clock(_ seconds: Double) -> String {
        let safe = seconds.isFinite ? max(0, seconds) : 0
        let allTenths = WholeNumber.clamped(safe * 10, .toNearestOrAwayFromZero, to: 0...Int.max) ?? 0
        let whole = allTenths / 10, tenths = allTenths % 10
        let (hours, minutes, rest) = (whole / 3600, (whole % 3600) / 60, whole % 60)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
        if tenths > 0 { text += ".\(tenths)" }
        return text
    }

    /// Moves each movie's playhead, shows the current marker's label, and announces the next one `lead` seconds
    /// ahead; clicking the timeline or a change's picture seeks. Written defensively: a page without a playable
    /// movie must not raise a single console error.
    static let script = """
        "use strict";
        (function () {
          function markersOf(index) {
            var element = document.getElementById("markers-" + index);
            return element ? JSON.parse(element.textContent) : { lead: 5, duration: 0, markers: [] };
          }
          function labelAt(markers, time) {
            var current = null;
            for (var i = 0; i < markers.length; i++) { if (markers[i][0] <= time + 1e-6) { current = i; } else { break; } }
            return current;
          }
          function format(seconds) {
            seconds = Math.max(0, Math.round(seconds));
            var minutes = Math.floor(seconds / 60), rest = seconds % 60;
            return minutes + ":" + (rest < 10 ? "0" : "") + rest;
          }
          document.querySelectorAll("video[data-movie]").forEach(function (video) {
            var index = video.getAttribute("data-movie");
            var data = markersOf(index);
            var now = document.getElementById("now-" + index);
            var next = document.getElementById("next-" + index);
            var playhead = document.getElementById("playhead-" + index);
            var timeline = document.getElementById("timeline-" + index);
            var left = timeline ? parseFloat(timeline.getAttribute("data-left")) : 0;
            var right = timeline ? parseFloat(timeline.getAttribute("data-right")) : 0;
            function update() {
              var time = video.currentTime || 0;
              var current = labelAt(data.markers, time);
              if (now) { now.textContent = current === null ? "–" : data.markers[current][1]; }
              // The next scene: the first later marker with another label (markers may repeat a label each second).
              var upcoming = data.markers.length;
              for (var j = current === null ? 0 : current + 1; j < data.markers.length; j++) {
                if (current === null || data.markers[j][1] !== data.markers[current][1]) { upcoming = j; break; }
              }
              if (next) {
                if (upcoming < data.markers.length) {
                  var wait = data.markers[upcoming][0] - time;
                  next.textContent = "next: " + data.markers[upcoming][1] + " at " + format(data.markers[upcoming][0]) +
                    (wait <= data.lead ? " (in " + Math.max(0, Math.ceil(wait)) + " s)" : "");
                  next.className = wait <= data.lead ? "next soon" : "next";
                } else {
                  next.textContent = "no further change";
                  next.className = "next";
                }
              }
              if (playhead && data.duration > 0) {
                var x = left + (right - left) * Math.min(1, Math.max(0, time / data.duration));
                playhead.setAttribute("x1", x);
                playhead.setAttribute("x2", x);
              }
            }
            ["timeupdate", "seeked", "loadeddata"].forEach(function (name) { video.addEventListener(name, update); });
            if (timeline) {
              timeline.addEventListener("click", function (event) {
                var box = timeline.getBoundingClientRect();
                var scale = 1000 / box.width;
                var x = (event.clientX - box.left) * scale;
                var time = (x - left) / (right - left) * data.duration;
                if (isFinite(time)) { video.currentTime = Math.min(Math.max(0, time), data.duration); }
              });
            }
            update();
          });
          document.querySelectorAll("button[data-seek]").forEach(function (button) {
            button.addEventListener("click", function () {
              var video = document.querySelector("video[data-movie=\\"" + button.getAttribute("data-movie") + "\\"]");
              if (video) { video.currentTime = parseFloat(button.getAttribute("data-seek")); }
            });
          });
        })();

        """
}

extension String {
    /// The string with the first occurrence of `target` replaced.
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}

/// A movie's markers as the page's script reads them: `{"lead": s, "duration": s, "markers": [[second, label], …]}`,
/// the seconds rounded as the page shows them.
private struct ScriptMarkers: Encodable {
    /// One marker: `[second, label]`.
    struct Marker: Encodable {
        var second: Int
        var label: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(second)
            try container.encode(label)
        }
    }

    var lead: JSONWriter.NumberText
    var duration: JSONWriter.NumberText
    var markers: [Marker]
}
