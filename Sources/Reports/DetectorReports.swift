import DetectionAnnotations
import DetectionMetrics
import ImageCodecs
import Pages

/// Fills a `DetectorReportPage` from a detector's boxes on the testing pictures: the metrics (`DetectionMetrics`),
/// each picture's mistakes at the threshold (`PictureOutcome`), and the worst pictures read again, scaled down, with
/// their boxes scaled alike.
public enum DetectorReports {
    /// One testing picture: where it is and what was there and found.
    public struct TestedPicture: Sendable {
        /// The picture's file.
        public var path: String
        /// Its objects and the detector's boxes, in the picture's pixels as displayed.
        public var evaluated: EvaluatedImage

        /// A picture from its parts.
        public init(path: String, evaluated: EvaluatedImage) {
            self.path = path
            self.evaluated = evaluated
        }
    }

    /// The most pictures the gallery shows: the worst ones, enough to see what goes wrong.
    public static let maximumPictures = 60
    /// The longer side of each picture shown, in pixels: enough to see where the boxes went, small enough that 60
    /// of them stay a few megabytes.
    public static let pictureSide = 480

    /// The page for `pictures` scored at `threshold`; `labels` in the model's order.
    public static func page(
        title: String, subtitle: [String], pictures: [TestedPicture], labels: [String],
        threshold: Double, maximumPictures: Int = maximumPictures
    ) -> DetectorReportPage {
        let images = pictures.map(\.evaluated)
        let report = AveragePrecision.evaluate(images, labels: labels)
        let rows = report.labels.map { label in
            let point = OperatingPoint.at(threshold: threshold, in: images, label: label.label)
            return DetectorReportPage.LabelRow(
                label: label.label, objects: label.groundTruthCount, predictions: label.predictionCount,
                reported: point.reportedCount, averagePrecision50: label.averagePrecision50, averagePrecision: label.averagePrecision,
                precision: point.precision, recall: point.recall, precisionCurve: label.precisionCurve)
        }
        let pooled = OperatingPoint.at(threshold: threshold, in: images)
        // Worst first; equal pictures keep their order, so the page is the same from run to run.
        let outcomes = images.map { PictureOutcome.at(threshold: threshold, in: $0) }
        let order = pictures.indices.sorted { (outcomes[$0].errors, $1) > (outcomes[$1].errors, $0) }
        let shown = order.prefix(max(0, maximumPictures))
        let cards = shown.map { card(pictures[$0], outcome: outcomes[$0]) }
        return DetectorReportPage(
            title: title, subtitle: subtitle, threshold: threshold,
            meanAveragePrecision50: report.meanAveragePrecision50, meanAveragePrecision: report.meanAveragePrecision,
            precision: pooled.precision, recall: pooled.recall, objects: pooled.groundTruthCount, labels: rows,
            pictures: cards, picturesLeftOut: pictures.count - cards.count)
    }

    /// One picture's card: the picture scaled so its longer side is at most `pictureSide`, and its boxes scaled
    /// alike. A picture that cannot be read again still gets its boxes, on a blank of the size they need.
    static func card(_ tested: TestedPicture, outcome: PictureOutcome) -> DetectorReportPage.PictureCard {
        let image = tested.evaluated
        var boxes: [DetectorReportPage.Box] = []
        for (index, object) in image.groundTruth.enumerated() {
            boxes.append(
                .init(
                    label: object.label, left: object.box.left, top: object.box.top, right: object.box.right,
                    bottom: object.box.bottom, kind: .object(found: outcome.groundTruthIsFound[index])))
        }
        for (index, prediction) in image.predictions.enumerated() {
            guard let correct = outcome.predictionIsCorrect[index] else { continue }
            boxes.append(
                .init(
                    label: prediction.label, left: prediction.box.left, top: prediction.box.top,
                    right: prediction.box.right, bottom: prediction.box.bottom,
                    kind: .prediction(score: prediction.score, correct: correct)))
        }
        guard let decoded = try? ImageLoader.load(path: tested.path), decoded.width > 0, decoded.height > 0 else {
            let extent = boxes.reduce((width: 1.0, height: 1.0)) { (max($0.width, $1.right), max($0.height, $1.bottom)) }
            return .init(
                file: tested.path, picture: nil, width: Int(extent.width.rounded(.up)),
                height: Int(extent.height.rounded(.up)), boxes: boxes)
        }
        let scale = min(1, Double(pictureSide) / Double(max(decoded.width, decoded.height)))
        let width = max(1, Int((Double(decoded.width) * scale).rounded()))
        let height = max(1, Int((Double(decoded.height) * scale).rounded()))
        let scaled =
            scale < 1
            ? Resize.bicubic(
                decoded, region: PixelRegion(left: 0, top: 0, width: decoded.width, height: decoded.height),
                outputWidth: width, outputHeight: height)
            : decoded
        let (scaleX, scaleY) = (Double(width) / Double(decoded.width), Double(height) / Double(decoded.height))
        for index in boxes.indices {
            boxes[index].left *= scaleX
            boxes[index].right *= scaleX
            boxes[index].top *= scaleY
            boxes[index].bottom *= scaleY
        }
        return .init(
            file: tested.path, picture: try? Picture.jpeg(scaled, name: tested.path), width: width, height: height,
            boxes: boxes)
    }
}
