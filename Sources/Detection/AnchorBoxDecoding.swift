/// A box in fractions of the picture, corners as TensorFlow's detection API keeps them: (top, left, bottom, right),
/// 0…1 inside the picture.
public struct NormalizedBox: Sendable, Equatable {
    public var top: Float
    public var left: Float
    public var bottom: Float
    public var right: Float

    /// A box from its corners.
    public init(top: Float, left: Float, bottom: Float, right: Float) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// The box clipped to the picture (0…1 on both axes), as the graph's `ClipToWindow` does.
    public var clipped: NormalizedBox {
        NormalizedBox(top: max(min(top, 1), 0), left: max(min(left, 1), 0), bottom: max(min(bottom, 1), 0), right: max(min(right, 1), 0))
    }

    /// `(bottom − top)·(right − left)`; zero or negative for an empty box.
    public var area: Float { (bottom - top) * (right - left) }
}

/// SSD's box decoding (TensorFlow's `FasterRcnnBoxCoder`): an anchor (yCenter, xCenter, height, width) and an
/// encoding (ty, tx, th, tw) give the box centred at `(ty/s₀·height + yCenter, tx/s₁·width + xCenter)` of size
/// `(exp(th/s₂)·height, exp(tw/s₃)·width)`, where s are the box coder's scales (10, 10, 5, 5); and the scores are
/// `sigmoid(logit / logitScale)`.
///
/// Layouts: `boxEncodings [anchors, 4]`, `anchors [anchors, 4]`, class logits `[anchors, classes]` with the
/// background first, all row-major Float.
public enum AnchorBoxDecoding {
    /// Decodes the boxes of `indices` (anchor numbers), in Float in the graph's operation order.
    public static func decode(
        boxEncodings: UnsafePointer<Float>, anchors: UnsafePointer<Float>, scales: [Float],
        indices: [Int]
    ) -> [NormalizedBox] {
        precondition(scales.count == 4, "AnchorBoxDecoding: four box coder scales")
        let (scaleY, scaleX, scaleHeight, scaleWidth) = (scales[0], scales[1], scales[2], scales[3])
        return indices.map { index in
            let code = boxEncodings + index * 4, anchor = anchors + index * 4
            let width = expf(code[3] / scaleWidth) * anchor[3]
            let height = expf(code[2] / scaleHeight) * anchor[2]
            let centerY = code[0] / scaleY * anchor[2] + anchor[0]
            let centerX = code[1] / scaleX * anchor[3] + anchor[1]
            return NormalizedBox(
                top: centerY - height / 2, left: centerX - width / 2, bottom: centerY + height / 2,
                right: centerX + width / 2)
        }
    }

    /// The naive reference: every anchor decoded from the formula in Double.
    public static func referenceDecode(boxEncodings: [Float], anchors: [Float], scales: [Float]) -> [NormalizedBox] {
        (0..<(anchors.count / 4)).map { index in
            let code = (0..<4).map { Double(boxEncodings[index * 4 + $0]) / Double(scales[$0]) }
            let anchor = (0..<4).map { Double(anchors[index * 4 + $0]) }
            let centerY = code[0] * anchor[2] + anchor[0], centerX = code[1] * anchor[3] + anchor[1]
            let height = _exp(code[2]) * anchor[2], width = _exp(code[3]) * anchor[3]
            return NormalizedBox(
                top: Float(centerY - height / 2), left: Float(centerX - width / 2),
                bottom: Float(centerY + height / 2), right: Float(centerX + width / 2))
        }
    }

    /// The anchors whose score for class `classIndex` (1 = the first label; 0 is the background) is at least
    /// `minimumScore`, with the scores: `sigmoid(logit / logitScale)`. A score is compared after conversion, so
    /// the threshold means what the caller reads.
    public static func scores(
        classLogits: UnsafePointer<Float>, anchorCount: Int, classCount: Int, classIndex: Int,
        logitScale: Float, minimumScore: Float
    ) -> (indices: [Int], scores: [Float]) {
        var indices: [Int] = [], scores: [Float] = []
        // sigmoid is monotonic: skip the exp for logits that cannot reach the threshold (most of the 1,917).
        let logitFloor: Float = minimumScore > 0 && minimumScore < 1 ? logf(minimumScore / (1 - minimumScore)) * logitScale - 1e-3 : -.infinity
        for anchor in 0..<anchorCount {
            let logit = classLogits[anchor * classCount + classIndex]
            if logit < logitFloor { continue }
            let score = sigmoid(logit / logitScale)
            if score >= minimumScore {
                indices.append(anchor)
                scores.append(score)
            }
        }
        return (indices, scores)
    }

    /// `1 / (1 + e^−x)` in Float, as TensorFlow's `Sigmoid`.
    @inline(__always)
    public static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `exp` in Double, named apart from Foundation's so the reference reads as math.
@inline(__always)
private func _exp(_ x: Double) -> Double { exp(x) }
