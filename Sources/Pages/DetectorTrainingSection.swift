/// What a detector's training page shows beyond its scores, as the classifier's page does: a warning when nothing
/// was learned, the loss and held-out mAP@0.5 per epoch, the pictures and boxes per label in each split, and the
/// settings. A plain value the training workflow fills; `DetectorReportPage` writes it.
public struct DetectorTrainingSection: Sendable {
    /// One epoch of the head's run (or of fine-tuning).
    public struct Epoch: Sendable, Equatable {
        /// 1-based.
        public var epoch: Int
        /// Mean training loss over the epoch.
        public var loss: Double
        /// mAP@0.5 on the held-out pictures after it.
        public var heldOutMeanAveragePrecision50: Double

        /// An epoch from its figures.
        public init(epoch: Int, loss: Double, heldOutMeanAveragePrecision50: Double) {
            self.epoch = epoch
            self.loss = loss
            self.heldOutMeanAveragePrecision50 = heldOutMeanAveragePrecision50
        }
    }

    /// One split's pictures and boxes.
    public struct Split: Sendable, Equatable {
        /// "training", "held-out", "testing".
        public var name: String
        /// Pictures in it, negatives (pictures without objects) included.
        public var pictures: Int
        /// Per label (in the page's label order): pictures holding at least one of its boxes, and its boxes.
        public var picturesPerLabel: [Int], boxesPerLabel: [Int]

        /// A split from its counts.
        public init(name: String, pictures: Int, picturesPerLabel: [Int], boxesPerLabel: [Int]) {
            self.name = name
            self.pictures = pictures
            self.picturesPerLabel = picturesPerLabel
            self.boxesPerLabel = boxesPerLabel
        }
    }

    /// Warnings, each one sentence, shown above the scores.
    public var warnings: [String] = []
    /// The head's epochs.
    public var epochs: [Epoch] = []
    /// The epoch the held-out pictures chose (1-based), marked on the curves.
    public var chosenEpoch: Int?
    /// Fine-tuning's epochs, drawn after the head's when it ran.
    public var fineTuningEpochs: [Epoch] = []
    /// The splits, in order.
    public var splits: [Split] = []
    /// Name–value lines: the settings the run used.
    public var settings: [(name: String, value: String)] = []

    /// An empty section.
    public init() {}

    func writeWarnings(_ body: inout HTMLWriter) {
        guard !warnings.isEmpty else { return }
        body.open("ul", [("class", "warnings"), ("id", "warnings")])
        for warning in warnings {
            body.open("li")
            body.element("span", [("class", "warning-mark")], "⚠ ")
            body.write(warning)
            body.close("li")
        }
        body.close("ul")
    }

    func writeCurvesAndDataset(_ body: inout HTMLWriter, labels: [String]) {
        let (loss, score) = charts()
        if loss != nil || score != nil {
            body.open("section", [("id", "training")])
            body.element("h2", [], "Training")
            body.open("div", [("class", "figures")])
            if let loss {
                figure(
                    &body, loss.svg(id: "epoch-loss"),
                    "Mean training loss per epoch (focal heat-map loss plus the size and offset losses; lower is better).")
            }
            if let score {
                figure(
                    &body, score.svg(id: "epoch-map"),
                    "Held-out mAP@0.5 after each epoch: the epoch kept is the best one\(fineTuningEpochs.isEmpty ? "" : "; fine-tuning's epochs follow the head's")."
                )
            }
            body.close("div")
            body.close("section")
        }
        guard !splits.isEmpty else { return }
        body.open("section", [("id", "dataset")])
        body.element("h2", [], "Dataset")
        let header = ["label"] + splits.flatMap { ["\($0.name) pictures", "\($0.name) boxes"] }
        var rows = labels.enumerated().map { index, label in
            [label] + splits.flatMap { split in [Self.count(split.picturesPerLabel, index), Self.count(split.boxesPerLabel, index)] }
        }
        rows.append(["all"] + splits.flatMap { ["\($0.pictures)", "\($0.boxesPerLabel.reduce(0, +))"] })
        body.table(
            header: header, rows: rows, numericColumns: Set(1..<header.count),
            caption: "Pictures holding each label and its boxes, per split (the last row counts every picture, negatives included)")
        body.close("section")
    }

    func writeSettings(_ body: inout HTMLWriter) {
        guard !settings.isEmpty else { return }
        body.open("section", [("id", "settings")])
        body.element("h2", [], "Settings")
        body.table(header: ["setting", "value"], rows: settings.map { [$0.name, $0.value] }, caption: "Settings")
        body.close("section")
    }

    private static func count(_ values: [Int], _ index: Int) -> String { index < values.count ? "\(values[index])" : "0" }

    private func figure(_ body: inout HTMLWriter, _ svg: String, _ caption: String) {
        body.open("figure")
        body.raw(svg)
        body.element("figcaption", [], caption)
        body.close("figure")
    }

    /// The loss and the held-out mAP@0.5 against the epoch; fine-tuning's epochs numbered on after the head's.
    func charts() -> (loss: XYChart?, score: XYChart?) {
        guard !epochs.isEmpty else { return (nil, nil) }
        let offset = epochs.map(\.epoch).max() ?? 0
        let tuned = fineTuningEpochs.map {
            Epoch(epoch: $0.epoch + offset, loss: $0.loss, heldOutMeanAveragePrecision50: $0.heldOutMeanAveragePrecision50)
        }
        let last = Double((tuned.last ?? epochs.last)?.epoch ?? 1)
        let xAxis = Axis(lower: 1, upper: max(last, 2))
        func series(_ name: String, _ points: [Epoch], _ value: (Epoch) -> Double, color: Int, dashed: Bool) -> [XYChart.Series] {
            points.isEmpty
                ? []
                : [
                    .init(
                        name: name, points: points.map { (x: Double($0.epoch), y: value($0)) }, color: CategoricalPalette.color(color), dashed: dashed
                    )
                ]
        }
        let lossSeries = series("head", epochs, \.loss, color: 4, dashed: false) + series("fine-tuning", tuned, \.loss, color: 5, dashed: true)
        let losses = lossSeries.flatMap { $0.points.map(\.y) }.filter(\.isFinite)
        var loss = XYChart(
            title: "Training loss per epoch", xAxis: xAxis, yAxis: Axis(lower: 0, upper: max(losses.max() ?? 1, 1e-6) * 1.1),
            xTitle: "epoch", yTitle: "training loss")
        loss.series = lossSeries
        var score = XYChart(
            title: "Held-out mAP@0.5 per epoch", xAxis: xAxis, yAxis: Axis(lower: 0, upper: 1, tickStyle: .percent),
            xTitle: "epoch", yTitle: "held-out mAP@0.5")
        score.series =
            series("head", epochs, \.heldOutMeanAveragePrecision50, color: 4, dashed: false)
            + series("fine-tuning", tuned, \.heldOutMeanAveragePrecision50, color: 5, dashed: true)
        if let chosenEpoch {
            score.markers = [.init(x: Double(chosenEpoch), caption: "chosen: epoch \(chosenEpoch)")]
            loss.markers = score.markers
        }
        return (loss, score)
    }
}
