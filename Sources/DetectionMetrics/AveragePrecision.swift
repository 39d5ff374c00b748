import DetectionAnnotations

/// One label's average precision.
public struct LabelAveragePrecision: Sendable, Equatable {
    /// The label.
    public var label: String
    /// Ground-truth boxes of the label, over all pictures.
    public var groundTruthCount: Int
    /// Predicted boxes of the label, over all pictures.
    public var predictionCount: Int
    /// Average precision at each of `AveragePrecision.intersectionThresholds` (0.5, 0.55 … 0.95); nil when the
    /// label has no ground truth (pycocotools' −1: such a label takes no part in the means).
    public var byThreshold: [Double]?
    /// The 101 interpolated precisions at IoU 0.5, one per `AveragePrecision.recallThresholds` (0 where that
    /// recall is never reached): the precision–recall curve people draw. Nil without ground truth.
    public var precisionCurve: [Double]?

    /// AP@0.5 (the Pascal VOC measure, computed COCO's way).
    public var averagePrecision50: Double? { byThreshold?[0] }
    /// AP@0.5:0.95: the mean over the ten thresholds (COCO's headline "AP").
    public var averagePrecision: Double? { byThreshold.map { $0.reduce(0, +) / Double($0.count) } }
}

/// Average precision over a set of pictures, per label and as the means over labels.
public struct AveragePrecisionReport: Sendable, Equatable {
    /// Each label, in the order asked for.
    public var labels: [LabelAveragePrecision]

    /// mAP@0.5: the mean of AP@0.5 over the labels with ground truth; nil when none has any.
    public var meanAveragePrecision50: Double? { mean(\.averagePrecision50) }
    /// mAP@0.5:0.95: the mean of AP@0.5:0.95 over the labels with ground truth; nil when none has any.
    public var meanAveragePrecision: Double? { mean(\.averagePrecision) }

    private func mean(_ value: KeyPath<LabelAveragePrecision, Double?>) -> Double? {
        let values = labels.compactMap { $0[keyPath: value] }
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
}

/// COCO-style average precision, as pycocotools' `COCOeval` computes it for boxes (`iouType="bbox"`), so that
/// numbers people compare are the numbers they know:
///
/// - per picture and label, predictions are matched to ground truth greedily by falling score (`GreedyMatching`)
///   at each IoU threshold 0.5, 0.55 … 0.95 (numpy's `linspace`, to the bit);
/// - per label, the predictions of all pictures are ranked by falling score (equal scores: earlier picture first,
///   then the picture's own order, as pycocotools' two stable sorts leave them); running true and false positives
///   give precision `tp / (tp + fp + ε)` (ε = 2⁻⁵², numpy's `spacing(1)`) and recall `tp / ground truth`;
/// - precision is made non-increasing from the right (the envelope), and read at the 101 recall thresholds
///   0, 0.01 … 1 at the first rank whose recall reaches each (0 where none does); AP is their mean;
/// - a label's AP@0.5:0.95 is the mean over the ten thresholds, and the mAPs the means over labels with ground
///   truth.
///
/// pycocotools' two other knobs are set so they do not bite: no area ranges (every box counts; its "all" range) and
/// no cap on predictions per picture (its default keeps the 100 best per picture and label: a detector decoding its
/// top 100 per picture never reaches it). `AveragePrecisionReference` computes the same from the definition with
/// plain loops; the tests hold both to goldens from pycocotools itself.
public enum AveragePrecision {
    /// IoU thresholds 0.5 … 0.95, as `numpy.linspace(0.5, 0.95, 10)` computes them.
    public static let intersectionThresholds = evenlySpaced(from: 0.5, to: 0.95, count: 10)
    /// Recall thresholds 0 … 1, as `numpy.linspace(0, 1, 101)` computes them.
    public static let recallThresholds = evenlySpaced(from: 0, to: 1, count: 101)

    /// numpy's `linspace` with its endpoint: `i · ((stop − start) / (count − 1)) + start`, the last value `stop`
    /// exactly, so thresholds compare with IoUs and recalls exactly as pycocotools' do.
    static func evenlySpaced(from start: Double, to stop: Double, count: Int) -> [Double] {
        let step = (stop - start) / Double(count - 1)
        return (0..<count).map { $0 == count - 1 ? stop : Double($0) * step + start }
    }

    /// Average precision of `images`' predictions against their ground truth, for `labels` (default: every label
    /// of the ground truth and the predictions, sorted).
    public static func evaluate(_ images: [EvaluatedImage], labels: [String]? = nil) -> AveragePrecisionReport {
        let labels = labels ?? allLabels(images)
        return AveragePrecisionReport(
            labels: labels.map { label in
                let ranked = RankedPredictions(images, label: label, thresholds: intersectionThresholds)
                guard ranked.groundTruthCount > 0 else {
                    return LabelAveragePrecision(
                        label: label, groundTruthCount: 0, predictionCount: ranked.entries.count,
                        byThreshold: nil, precisionCurve: nil)
                }
                let curves = intersectionThresholds.indices.map { threshold in
                    interpolatedPrecision(ranked.entries.map { $0.matched[threshold] }, groundTruthCount: ranked.groundTruthCount)
                }
                return LabelAveragePrecision(
                    label: label, groundTruthCount: ranked.groundTruthCount, predictionCount: ranked.entries.count,
                    byThreshold: curves.map { $0.reduce(0, +) / Double($0.count) },
                    precisionCurve: curves[0])
            })
    }

    /// Every label of the ground truth and the predictions, sorted.
    static func allLabels(_ images: [EvaluatedImage]) -> [String] {
        Array(Set(images.flatMap { $0.groundTruth.map(\.label) + $0.predictions.map(\.label) })).sorted()
    }

    /// The 101 interpolated precisions of a ranking (`matched[i]`: whether the i-th best prediction is a true
    /// positive), as pycocotools' `accumulate` computes them: running precision and recall, the envelope from the
    /// right, then for each recall threshold the precision at the first rank reaching it (found by bisection).
    static func interpolatedPrecision(_ matched: [Bool], groundTruthCount: Int) -> [Double] {
        var precision = [Double](repeating: 0, count: matched.count)
        var recall = [Double](repeating: 0, count: matched.count)
        var truePositives = 0.0, falsePositives = 0.0
        for (rank, isMatched) in matched.enumerated() {
            if isMatched { truePositives += 1 } else { falsePositives += 1 }
            recall[rank] = truePositives / Double(groundTruthCount)
            precision[rank] = truePositives / (falsePositives + truePositives + Double.ulpOfOne)
        }
        for rank in stride(from: matched.count - 1, to: 0, by: -1) where precision[rank] > precision[rank - 1] {
            precision[rank - 1] = precision[rank]
        }
        return recallThresholds.map { threshold in
            // numpy's searchsorted(side="left"): the first rank whose recall is at least the threshold.
            var low = 0, high = recall.count
            while low < high {
                let middle = (low + high) / 2
                if recall[middle] < threshold { low = middle + 1 } else { high = middle }
            }
            return low < precision.count ? precision[low] : 0
        }
    }
}

/// One label's predictions over all pictures, ranked as pycocotools ranks them, each with whether it is matched at
/// each IoU threshold; and the label's ground-truth count. Shared by the average precision and the operating points.
struct RankedPredictions {
    /// A prediction, where it came from, and its matches.
    struct Entry {
        var score: Double
        var image: Int
        var index: Int
        /// Whether it is a true positive at each threshold asked for.
        var matched: [Bool]
    }

    var groundTruthCount = 0
    /// Falling score; equal scores by picture, then by the picture's own order.
    var entries: [Entry] = []

    init(_ images: [EvaluatedImage], label: String, thresholds: [Double]) {
        for (imageIndex, image) in images.enumerated() {
            let truths = image.groundTruth.filter { $0.label == label }.map(\.box)
            groundTruthCount += truths.count
            let indices = image.predictions.indices.filter { image.predictions[$0].label == label }
            guard !indices.isEmpty else { continue }
            let order = GreedyMatching.scoreOrder(indices.map { image.predictions[$0].score }).map { indices[$0] }
            // Prediction first, as pycocotools' `iou(dt, gt)` computes it.
            let overlaps = order.map { prediction in truths.map { image.predictions[prediction].box.intersectionOverUnion($0) } }
            let matches = thresholds.map { GreedyMatching.match(overlaps: overlaps, groundTruthCount: truths.count, threshold: $0) }
            for (position, prediction) in order.enumerated() {
                entries.append(
                    Entry(
                        score: image.predictions[prediction].score, image: imageIndex, index: prediction,
                        matched: matches.map { $0[position] }))
            }
        }
        entries.sort { first, second in
            let (a, b) = (GreedyMatching.rank(first.score), GreedyMatching.rank(second.score))
            if a != b { return a > b }
            return first.image != second.image ? first.image < second.image : first.index < second.index
        }
    }
}
