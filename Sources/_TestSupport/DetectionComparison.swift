/// The rule Workbench's detections are held to against a reference's, with its tolerances named in one place
/// (issue 24, "Done when"): every reference box scoring at least `reportedScore` has a Workbench box with IoU ≥
/// `minimumOverlap` and a score within `scoreTolerance`, and Workbench reports no box scoring at least
/// `reportedScore` that no reference box (down to the reference's report floor) matches so.
///
/// Boxes are plain corners here, not `Detection.BoundingBox`, so the in-process golden test (debug build) and the
/// release binary's test (boxes read back from `detect --json`) share the rule without this module importing the
/// code under test.
public enum DetectionComparison {
    /// The score from which a box counts as reported (the `detect` command's default `--min-score`).
    public static let reportedScore: Float = 0.5
    /// The smallest IoU of a matching pair: float rounding moves a box by far less than a pixel.
    public static let minimumOverlap = 0.9
    /// The largest score difference of a matching pair.
    public static let scoreTolerance: Float = 0.02

    /// A box by its corners, in pixels.
    public struct Box: Sendable, Equatable {
        public var left, top, right, bottom: Double
        public init(left: Double, top: Double, right: Double, bottom: Double) {
            (self.left, self.top, self.right, self.bottom) = (left, top, right, bottom)
        }

        /// Intersection over union, written out here rather than borrowed from the code under test.
        func overlap(_ other: Box) -> Double {
            let width = max(0, min(right, other.right) - max(left, other.left))
            let height = max(0, min(bottom, other.bottom) - max(top, other.top))
            let intersection = width * height
            let union = (right - left) * (bottom - top) + (other.right - other.left) * (other.bottom - other.top) - intersection
            return union > 0 ? intersection / union : 0
        }
    }

    /// A scored box of either side.
    public struct Scored: Sendable {
        public var score: Float
        public var box: Box
        public init(score: Float, box: Box) {
            self.score = score
            self.box = box
        }
    }

    /// A box that must have had a partner but has none, for the failure message.
    public struct Unmatched: CustomStringConvertible, Sendable {
        public let side: String
        public let score: Float
        public let box: Box
        public var description: String {
            "\(side) box \(score) at (\(Int(box.left)), \(Int(box.top)), \(Int(box.right)), \(Int(box.bottom)))"
        }
    }

    /// The boxes that break the rule: reference boxes without a Workbench partner, and Workbench boxes without a
    /// reference partner. `reference` must hold the reference's boxes down to at least
    /// `reportedScore − scoreTolerance`, so a box just under the line on one side still partners one just over it.
    public static func unmatched(workbench: [Scored], reference: [Scored]) -> [Unmatched] {
        func partners(_ first: Scored, _ second: Scored) -> Bool {
            first.box.overlap(second.box) >= minimumOverlap && abs(first.score - second.score) <= scoreTolerance
        }
        var problems: [Unmatched] = []
        for expected in reference where expected.score >= reportedScore {
            if !workbench.contains(where: { partners($0, expected) }) {
                problems.append(Unmatched(side: "reference", score: expected.score, box: expected.box))
            }
        }
        for found in workbench where found.score >= reportedScore {
            if !reference.contains(where: { partners(found, $0) }) {
                problems.append(Unmatched(side: "Workbench", score: found.score, box: found.box))
            }
        }
        return problems
    }
}
