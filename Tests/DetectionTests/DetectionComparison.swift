import Detection

/// The rule Workbench's detections are held to against a reference's, with its tolerances named in one place
/// (issue 24, "Done when"): every reference box scoring at least `reportedScore` has a Workbench box of the same
/// label with IoU ≥ `minimumOverlap` and a score within `scoreTolerance`, and Workbench reports no box scoring at
/// least `reportedScore` that no reference box (down to the reference's report floor) matches so.
enum DetectionComparison {
    /// The score from which a box counts as reported (the `detect` command's default `--min-score`).
    static let reportedScore: Float = 0.5
    /// The smallest IoU of a matching pair: float rounding moves a box by far less than a pixel.
    static let minimumOverlap = 0.9
    /// The largest score difference of a matching pair.
    static let scoreTolerance: Float = 0.02

    /// A box that must have had a partner but has none, for the failure message.
    struct Unmatched: CustomStringConvertible {
        let side: String
        let score: Float
        let box: BoundingBox
        var description: String {
            "\(side) box \(score) at (\(Int(box.left)), \(Int(box.top)), \(Int(box.right)), \(Int(box.bottom)))"
        }
    }

    /// The boxes that break the rule: reference boxes without a Workbench partner, and Workbench boxes without a
    /// reference partner. `reference` must hold the reference's boxes down to at least
    /// `reportedScore − scoreTolerance`, so a box just under the line on one side still partners one just over it.
    static func unmatched(workbench: [DetectedObject], reference: [(score: Float, box: BoundingBox)]) -> [Unmatched] {
        func partners(_ first: BoundingBox, _ firstScore: Float, _ second: BoundingBox, _ secondScore: Float) -> Bool {
            first.intersectionOverUnion(second) >= minimumOverlap && abs(firstScore - secondScore) <= scoreTolerance
        }
        var problems: [Unmatched] = []
        for expected in reference where expected.score >= reportedScore {
            if !workbench.contains(where: { partners($0.box, $0.confidence, expected.box, expected.score) }) {
                problems.append(Unmatched(side: "reference", score: expected.score, box: expected.box))
            }
        }
        for found in workbench where found.confidence >= reportedScore {
            if !reference.contains(where: { partners(found.box, found.confidence, $0.box, $0.score) }) {
                problems.append(Unmatched(side: "Workbench", score: found.confidence, box: found.box))
            }
        }
        return problems
    }
}
