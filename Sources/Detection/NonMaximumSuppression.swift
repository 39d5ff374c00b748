/// Greedy non-maximum suppression as TensorFlow's `NonMaxSuppressionV3` runs it: boxes in order of falling score
/// (equal scores: lower index first), each kept unless its IoU with an already kept box exceeds the threshold,
/// until `maximumCount` are kept. IoU is computed in Float on the corners, each box's corners sorted first, and
/// is 0 when either box is empty — TensorFlow's rules, so borderline boxes fall the same way.
public enum NonMaximumSuppression {
    /// Indices into `boxes` of the kept boxes, highest score first. Boxes scoring at most `scoreThreshold` are
    /// never kept. Sorts once, then compares each candidate with the kept boxes only (O(n·k)).
    public static func select(
        boxes: [NormalizedBox], scores: [Float], overlapThreshold: Float, scoreThreshold: Float,
        maximumCount: Int
    ) -> [Int] {
        precondition(boxes.count == scores.count, "NonMaximumSuppression: one score per box")
        let order = boxes.indices.filter { scores[$0] > scoreThreshold }
            .sorted { scores[$0] > scores[$1] || (scores[$0] == scores[$1] && $0 < $1) }
        var kept: [Int] = []
        var keptBoxes: [SortedCorners] = []
        for candidate in order {
            if kept.count >= maximumCount { break }
            let corners = SortedCorners(boxes[candidate])
            if keptBoxes.allSatisfy({ overlap(corners, $0) <= overlapThreshold }) {
                kept.append(candidate)
                keptBoxes.append(corners)
            }
        }
        return kept
    }

    /// The naive reference: repeatedly take the best remaining box (highest score, then lowest index), keep it,
    /// and remove every remaining box that overlaps it by more than the threshold.
    public static func referenceSelect(
        boxes: [NormalizedBox], scores: [Float], overlapThreshold: Float, scoreThreshold: Float,
        maximumCount: Int
    ) -> [Int] {
        var remaining = Set(boxes.indices.filter { scores[$0] > scoreThreshold })
        var kept: [Int] = []
        while kept.count < maximumCount, let best = remaining.max(by: { scores[$0] < scores[$1] || (scores[$0] == scores[$1] && $0 > $1) }) {
            kept.append(best)
            remaining.remove(best)
            remaining = remaining.filter { intersectionOverUnion(boxes[$0], boxes[best]) <= overlapThreshold }
        }
        return kept
    }

    /// TensorFlow's IoU of two corner boxes (corners sorted per axis; 0 when either is empty).
    public static func intersectionOverUnion(_ first: NormalizedBox, _ second: NormalizedBox) -> Float {
        overlap(SortedCorners(first), SortedCorners(second))
    }

    /// A box's corners sorted per axis, and its area.
    struct SortedCorners {
        let top: Float, left: Float, bottom: Float, right: Float, area: Float
        init(_ box: NormalizedBox) {
            top = min(box.top, box.bottom)
            bottom = max(box.top, box.bottom)
            left = min(box.left, box.right)
            right = max(box.left, box.right)
            area = (bottom - top) * (right - left)
        }
    }

    @inline(__always)
    static func overlap(_ first: SortedCorners, _ second: SortedCorners) -> Float {
        if first.area <= 0 || second.area <= 0 { return 0 }
        let height = max(min(first.bottom, second.bottom) - max(first.top, second.top), 0)
        let width = max(min(first.right, second.right) - max(first.left, second.left), 0)
        let intersection = height * width
        return intersection / (first.area + second.area - intersection)
    }
}
