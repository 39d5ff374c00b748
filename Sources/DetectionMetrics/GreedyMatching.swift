import DetectionAnnotations

/// How pycocotools' `COCOeval.evaluateImg` pairs one picture's predictions of one label with its ground truth at
/// one IoU threshold, without crowd or ignored boxes (Create ML's annotations have neither):
///
/// predictions in order of falling score (equal scores in their given order: numpy's stable `mergesort`); each
/// takes the not yet taken ground-truth box of highest IoU, if that IoU is at least the threshold (capped at
/// 1 − 1e-10); among equal IoUs the *last* such box wins, because pycocotools skips a box only when its IoU is
/// strictly below the best so far. A prediction that takes a box is a true positive, any other a false positive.
enum GreedyMatching {
    /// pycocotools' cap on the threshold, so that an IoU of exactly 1 can match at threshold 1.
    static let thresholdCap = 1 - 1e-10

    /// The predictions' order: falling score, equal scores by index. NaN ranks below everything.
    static func scoreOrder(_ scores: [Double]) -> [Int] {
        scores.indices.sorted { first, second in
            let (a, b) = (rank(scores[first]), rank(scores[second]))
            return a > b || (a == b && first < second)
        }
    }

    /// A score as sorted: NaN as −∞.
    static func rank(_ score: Double) -> Double { score.isNaN ? -.infinity : score }

    /// Whether each prediction is matched; `overlaps[prediction][groundTruth]` are IoUs, the predictions already in
    /// `scoreOrder`.
    static func match(overlaps: [[Double]], groundTruthCount: Int, threshold: Double) -> [Bool] {
        assign(overlaps: overlaps, groundTruthCount: groundTruthCount, threshold: threshold).map { $0 != nil }
    }

    /// The ground-truth box each prediction takes (nil: none), by the same rule as `match`.
    static func assign(overlaps: [[Double]], groundTruthCount: Int, threshold: Double) -> [Int?] {
        var taken = [Bool](repeating: false, count: groundTruthCount)
        var assigned = [Int?](repeating: nil, count: overlaps.count)
        for prediction in overlaps.indices {
            var best = min(threshold, thresholdCap)
            var choice = -1
            for groundTruth in 0..<groundTruthCount where !taken[groundTruth] {
                let overlap = overlaps[prediction][groundTruth]
                if overlap < best { continue }
                best = overlap
                choice = groundTruth
            }
            if choice >= 0 {
                taken[choice] = true
                assigned[prediction] = choice
            }
        }
        return assigned
    }
}
