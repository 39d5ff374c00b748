import DetectionAnnotations

/// Average precision from its definition, with plain loops, to hold `AveragePrecision` to: for each label and
/// threshold, repeatedly take the best remaining prediction (highest score, then earliest picture, then earliest in
/// its picture), give it the free ground-truth box of its picture it overlaps most (at least the threshold; the
/// last of equal overlaps), and write down precision and recall after it. The interpolated precision at recall r
/// is the largest precision written down at any recall ≥ r (0 if none), with no envelope, no bisection and no
/// shared matching.
public enum AveragePrecisionReference {
    /// The same report as `AveragePrecision.evaluate`.
    public static func evaluate(_ images: [EvaluatedImage], labels: [String]? = nil) -> AveragePrecisionReport {
        let labels = labels ?? AveragePrecision.allLabels(images)
        var results: [LabelAveragePrecision] = []
        for label in labels {
            var groundTruthCount = 0, predictionCount = 0
            for image in images {
                for object in image.groundTruth where object.label == label { groundTruthCount += 1 }
                for prediction in image.predictions where prediction.label == label { predictionCount += 1 }
            }
            if groundTruthCount == 0 {
                results.append(
                    LabelAveragePrecision(
                        label: label, groundTruthCount: 0, predictionCount: predictionCount,
                        byThreshold: nil, precisionCurve: nil))
                continue
            }
            var byThreshold: [Double] = [], firstCurve: [Double] = []
            for threshold in AveragePrecision.intersectionThresholds {
                let curve = curve(images, label: label, threshold: threshold, groundTruthCount: groundTruthCount)
                if firstCurve.isEmpty { firstCurve = curve }
                var sum = 0.0
                for value in curve { sum += value }
                byThreshold.append(sum / Double(curve.count))
            }
            results.append(
                LabelAveragePrecision(
                    label: label, groundTruthCount: groundTruthCount, predictionCount: predictionCount,
                    byThreshold: byThreshold, precisionCurve: firstCurve))
        }
        return AveragePrecisionReport(labels: results)
    }

    /// Whether `first` (score, picture, index) is taken before `second`.
    static func comesFirst(_ first: (Double, Int, Int), _ second: (Double, Int, Int)) -> Bool {
        let a = first.0.isNaN ? -Double.infinity : first.0, b = second.0.isNaN ? -Double.infinity : second.0
        if a != b { return a > b }
        if first.1 != second.1 { return first.1 < second.1 }
        return first.2 < second.2
    }

    /// The 101 interpolated precisions of one label at one threshold.
    static func curve(_ images: [EvaluatedImage], label: String, threshold: Double, groundTruthCount: Int) -> [Double] {
        var remaining: [(Double, Int, Int)] = []
        for (imageIndex, image) in images.enumerated() {
            for (index, prediction) in image.predictions.enumerated() where prediction.label == label {
                remaining.append((prediction.score, imageIndex, index))
            }
        }
        var taken = images.map { [Bool](repeating: false, count: $0.groundTruth.count) }
        var precisions: [Double] = [], recalls: [Double] = []
        var truePositives = 0.0, falsePositives = 0.0
        while !remaining.isEmpty {
            var best = 0
            for candidate in remaining.indices where comesFirst(remaining[candidate], remaining[best]) { best = candidate }
            let (_, imageIndex, index) = remaining.remove(at: best)
            let box = images[imageIndex].predictions[index].box
            var bestOverlap = min(threshold, 1 - 1e-10), choice = -1
            for (truthIndex, truth) in images[imageIndex].groundTruth.enumerated() where truth.label == label && !taken[imageIndex][truthIndex] {
                let overlap = box.intersectionOverUnion(truth.box)
                if overlap >= bestOverlap {
                    bestOverlap = overlap
                    choice = truthIndex
                }
            }
            if choice >= 0 {
                taken[imageIndex][choice] = true
                truePositives += 1
            } else {
                falsePositives += 1
            }
            precisions.append(truePositives / (falsePositives + truePositives + Double.ulpOfOne))
            recalls.append(truePositives / Double(groundTruthCount))
        }
        return AveragePrecision.recallThresholds.map { recallThreshold in
            var best = 0.0
            for rank in recalls.indices where recalls[rank] >= recallThreshold && precisions[rank] > best { best = precisions[rank] }
            return best
        }
    }
}
