import DetectionAnnotations

/// What one picture's reported boxes got right and wrong at one score threshold, matched at IoU 0.5 per label as
/// `OperatingPoint` matches them: which boxes are true and false positives, which objects were missed. The report
/// page draws this on each testing picture and shows the worst pictures first.
public struct PictureOutcome: Sendable, Equatable {
    /// Per prediction (in the picture's order): true when it matches an object, false when it matches none, nil
    /// when its score is below the threshold (not reported).
    public var predictionIsCorrect: [Bool?]
    /// Per ground-truth object (in the picture's order): whether a reported box found it.
    public var groundTruthIsFound: [Bool]

    /// Objects no reported box found.
    public var missed: Int { groundTruthIsFound.filter { !$0 }.count }
    /// Reported boxes that match no object.
    public var falsePositives: Int { predictionIsCorrect.filter { $0 == false }.count }
    /// Mistakes of either kind: the order of the page's pictures, worst first.
    public var errors: Int { missed + falsePositives }

    /// The outcome of `image` when boxes scoring at least `threshold` are reported.
    public static func at(threshold: Double, in image: EvaluatedImage) -> PictureOutcome {
        var outcome = PictureOutcome(
            predictionIsCorrect: image.predictions.map { $0.score >= threshold ? false : nil },
            groundTruthIsFound: [Bool](repeating: false, count: image.groundTruth.count))
        let labels = Set(image.groundTruth.map(\.label)).union(image.predictions.map(\.label))
        for label in labels.sorted() {
            let truths = image.groundTruth.indices.filter { image.groundTruth[$0].label == label }
            let reported = image.predictions.indices.filter {
                image.predictions[$0].label == label && image.predictions[$0].score >= threshold
            }
            guard !reported.isEmpty, !truths.isEmpty else { continue }
            let order = GreedyMatching.scoreOrder(reported.map { image.predictions[$0].score }).map { reported[$0] }
            let overlaps = order.map { prediction in
                truths.map { image.predictions[prediction].box.intersectionOverUnion(image.groundTruth[$0].box) }
            }
            let assigned = GreedyMatching.assign(
                overlaps: overlaps, groundTruthCount: truths.count,
                threshold: OperatingPoint.matchingThreshold)
            for (position, prediction) in order.enumerated() {
                guard let truth = assigned[position] else { continue }
                outcome.predictionIsCorrect[prediction] = true
                outcome.groundTruthIsFound[truths[truth]] = true
            }
        }
        return outcome
    }
}
