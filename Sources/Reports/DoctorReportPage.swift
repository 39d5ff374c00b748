import DataAudit
import Foundation
import ImageCodecs
import Inference
import TensorCore

/// `workbench doctor`'s "Explore" page: a gallery per kind of finding — copies side by side with their splits and
/// similarity, suspect labels with their folder, the suggested label and the confidence, outliers with their nearest
/// neighbours — and a filter by label and kind. Self-contained: thumbnails are `data:` URIs, style and script inline.
public struct DoctorReportPage: Sendable {
    /// The dataset folder, for the title.
    public var dataset: String
    /// The lines under the title (how the findings were made).
    public var subtitle: [String] = []
    /// The labels, for the filter.
    public var labels: [String]
    /// Pictures per label: `(label, [training, validation, testing])`.
    public var counts: [(label: String, perSplit: [Int])] = []
    public var labelIssues: [LabelIssue] = []
    public var duplicates: [Duplicate] = []
    public var outliers: [Outlier] = []
    /// Dataset warnings, one line each.
    public var warnings: [String] = []
    /// Each shown file's thumbnail; a file without one gets its card's caption only.
    public var thumbnails: [String: Picture] = [:]

    /// Cards shown per kind; the JSON has them all.
    public static let shownPerKind = 60

    /// A page for `dataset` over `labels`.
    public init(dataset: String, labels: [String]) {
        self.dataset = dataset
        self.labels = labels
    }

    /// Every file a card shows, in the order the page shows them.
    public var shownFiles: [String] {
        var files: [String] = []
        for duplicate in duplicates.prefix(Self.shownPerKind) { files += duplicate.paths.prefix(4) }
        files += labelIssues.prefix(Self.shownPerKind).map(\.path)
        for outlier in outliers.prefix(Self.shownPerKind) { files += [outlier.path] + outlier.neighbours }
        var seen = Set<String>()
        return files.filter { seen.insert($0).inserted }
    }

    /// The thumbnails of `paths` (the network's centre crop, scaled to `ModelReports.thumbnailSide`), made on the
    /// extractor's threads; a file that can no longer be read gets none.
    public static func thumbnails(of paths: [String], extractor: FeatureExtractor) -> [String: Picture] {
        let results = UncheckedSendable(UnsafeMutableBufferPointer<Picture?>.allocate(capacity: paths.count))
        results.value.initialize(repeating: nil)
        defer { results.value.deallocate() }
        let preprocessing = extractor.preprocessing, maximumPixels = extractor.settings.maximumPixels
        Parallel.forEach(paths.count, threads: max(1, extractor.settings.threads)) { index in
            guard let image = try? ImageLoader.load(path: paths[index], options: DecodeOptions(maximumPixels: maximumPixels)) else { return }
            results.value[index] = try? Picture.networkCropThumbnail(of: image, preprocessing: preprocessing, name: paths[index])
        }
        var pictures: [String: Picture] = [:]
        for (index, path) in paths.enumerated() { if let picture = results.value[index] { pictures[path] = picture } }
        return pictures
    }

    /// The HTML document.
    public func html() -> String {
        var body = PageFrame.header(title: "Explore \((dataset as NSString).lastPathComponent)", subtitle: subtitle)
        body.open("nav", [("class", "sections")])
        for (anchor, title) in [("copies", "Copies"), ("labels", "Wrong folder"), ("outliers", "Outliers"), ("facts", "Dataset")] {
            body.element("a", [("href", "#\(anchor)")], title)
        }
        body.close("nav")
        body.open("main")
        filter(&body)
        copies(&body)
        suspects(&body)
        outlierSection(&body)
        facts(&body)
        body.close("main")
        return PageFrame.document(title: "Explore \(dataset)", body: body.text, script: Self.script)
    }

    private func filter(_ body: inout HTMLWriter) {
        body.open("form", [("class", "filter"), ("id", "filter")])
        body.open("label")
        body.write("Label ")
        body.open("select", [("id", "filter-label")])
        body.element("option", [("value", "")], "all labels")
        for label in labels { body.element("option", [("value", label)], label) }
        body.close("select")
        body.close("label")
        for (kind, title) in [("copy", "copies"), ("label", "wrong folder"), ("outlier", "outliers")] {
            body.open("label", [("class", "toggle")])
            body.void("input", [("type", "checkbox"), ("class", "filter-kind"), ("value", kind), ("checked", "")])
            body.write(" \(title)")
            body.close("label")
        }
        body.close("form")
    }

    private func card(_ body: inout HTMLWriter, path: String, lines: [(String, String)]) {
        body.open("div", [("class", "card")])
        body.open("div", [("class", "frame")])
        if let picture = thumbnails[path] {
            body.void("img", [("src", picture.dataURI), ("alt", path), ("width", "\(picture.width)"), ("height", "\(picture.height)")])
        } else {
            body.element("span", [("class", "missing")], "no picture")
        }
        body.close("div")
        body.open("span", [("class", "file")])
        body.name((path as NSString).lastPathComponent)
        body.close("span")
        for (className, line) in lines { body.element("div", [("class", className)], line) }
        body.close("div")
    }

    private func labelOf(_ path: String) -> String { ((path as NSString).deletingLastPathComponent as NSString).lastPathComponent }

    private func copies(_ body: inout HTMLWriter) {
        body.open("section", [("id", "copies")])
        body.element("h2", [], "Copies (\(duplicates.count))")
        body.element(
            "p", [("class", "explain")],
            "The same bytes (exact) or features nearly equal (near: resized, re-encoded, cropped, brightened, mirrored). "
                + "A copy across splits is a leak: the held-out figures count a picture the model has seen.")
        body.open("div", [("class", "pairs")])
        for duplicate in duplicates.prefix(Self.shownPerKind) {
            let labels = Set(duplicate.paths.map(labelOf)).sorted().joined(separator: "|")
            body.open("div", [("class", "pair finding"), ("data-kind", "copy"), ("data-labels", labels)])
            for (path, split) in zip(duplicate.paths.prefix(4), duplicate.splits) {
                card(
                    &body, path: path,
                    lines: [
                        ("truth", split),
                        (
                            "predicted",
                            "\(duplicate.kind.rawValue) \(Markup.number(duplicate.similarity, decimals: 3))\(duplicate.leak ? " · leak" : "")"
                        ),
                    ])
            }
            body.close("div")
        }
        body.close("div")
        if duplicates.count > Self.shownPerKind {
            body.element("p", [("class", "more")], "and \(duplicates.count - Self.shownPerKind) more in the JSON")
        }
        body.close("section")
    }

    private func suspects(_ body: inout HTMLWriter) {
        body.open("section", [("id", "labels")])
        body.element("h2", [], "Likely in the wrong folder (\(labelIssues.count))")
        body.element(
            "p", [("class", "explain")],
            "Confident learning on out-of-sample probabilities: the picture reaches the suggested label's threshold "
                + "(the mean confidence of that label's own pictures) and not its folder's. Lowest confidence in the folder first.")
        body.open("div", [("class", "gallery")])
        for issue in labelIssues.prefix(Self.shownPerKind) {
            body.open("div", [("class", "finding"), ("data-kind", "label"), ("data-labels", "\(issue.label)|\(issue.suggestedLabel)")])
            card(
                &body, path: issue.path,
                lines: [
                    ("truth", "folder \(issue.label) (\(issue.split))"),
                    ("predicted", "looks like \(issue.suggestedLabel), \(Markup.percent(issue.confidence))"),
                ])
            body.close("div")
        }
        body.close("div")
        body.close("section")
    }

    private func outlierSection(_ body: inout HTMLWriter) {
        body.open("section", [("id", "outliers")])
        body.element("h2", [], "Outliers (\(outliers.count))")
        body.element(
            "p", [("class", "explain")],
            "Pictures far from all others: the mean distance to their nearest neighbours, in robust standard deviations "
                + "above the dataset's median. Beside each, its nearest neighbours.")
        body.open("div", [("class", "pairs")])
        for outlier in outliers.prefix(Self.shownPerKind) {
            body.open("div", [("class", "pair finding"), ("data-kind", "outlier"), ("data-labels", outlier.label)])
            card(
                &body, path: outlier.path,
                lines: [("truth", "\(outlier.label) (\(outlier.split))"), ("predicted", "score \(Markup.number(outlier.score, decimals: 1))")])
            for neighbour in outlier.neighbours { card(&body, path: neighbour, lines: [("truth", "neighbour")]) }
            body.close("div")
        }
        body.close("div")
        body.close("section")
    }

    private func facts(_ body: inout HTMLWriter) {
        body.open("section", [("id", "facts")])
        body.element("h2", [], "Dataset")
        body.table(
            header: ["label", "training", "validation", "testing"], rows: counts.map { [$0.label] + $0.perSplit.map(String.init) },
            numericColumns: [1, 2, 3], caption: "Pictures per label and split")
        if !warnings.isEmpty {
            body.open("ul", [("class", "warnings")])
            for warning in warnings { body.element("li", [], warning) }
            body.close("ul")
        }
        body.close("section")
    }

    /// Hides the findings that do not match the chosen label and kinds.
    static let script = """
        (function () {
          var select = document.getElementById('filter-label');
          var kinds = Array.prototype.slice.call(document.querySelectorAll('.filter-kind'));
          function apply() {
            var label = select.value;
            var shown = kinds.filter(function (box) { return box.checked; }).map(function (box) { return box.value; });
            document.querySelectorAll('.finding').forEach(function (card) {
              var labels = card.getAttribute('data-labels').split('|');
              var visible = shown.indexOf(card.getAttribute('data-kind')) >= 0 && (label === '' || labels.indexOf(label) >= 0);
              card.style.display = visible ? '' : 'none';
            });
          }
          select.addEventListener('change', apply);
          kinds.forEach(function (box) { box.addEventListener('change', apply); });
          apply();
        })();

        """
}
