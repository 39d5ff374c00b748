import Detection
import ImageCodecs
import TensorCore
import XCTest

/// Each fast path of the detector's pre- and post-processing against its naive reference, on seeded random cases.
final class DetectorReferenceTests: XCTestCase {
    /// Float against Double of the same formula: a few ulps of values within ±1 (preprocessing) or of boxes within
    /// a few units (decoding).
    static let floatVersusDouble: Float = 1e-5

    func randomImage(width: Int, height: Int, random: inout SplitMix64) -> RGBImage {
        RGBImage(width: width, height: height, pixels: (0..<(width * height * 3)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    func testPreprocessingMatchesTheReferenceWhenShrinkingGrowingAndOnOnePixel() {
        var random = SplitMix64(seed: 24)
        for (width, height) in [(1, 1), (7, 3), (300, 300), (301, 299), (640, 480), (97, 1013), (1200, 20)] {
            let image = randomImage(width: width, height: height, random: &random)
            let fast = DetectorPreprocessing.prepare(image, side: 300)
            let reference = DetectorPreprocessing.referencePrepare(image, side: 300)
            let worst = zip(fast, reference).map { abs($0 - $1) }.max() ?? 0
            XCTAssertLessThanOrEqual(worst, Self.floatVersusDouble, "\(width)×\(height)")
        }
    }

    func testPreprocessingUsesTensorFlowOnesCornerMapping() {
        // A 2×1 picture (black, white) grown to 4 wide: TF1 samples at 0, 0.5, 1, 1.5 (clamped), so the output is
        // 0, ½, 1, 1 — not the half-pixel-centre mapping's ¼-steps.
        let image = RGBImage(width: 2, height: 1, pixels: [0, 0, 0, 255, 255, 255])
        let values = DetectorPreprocessing.prepare(image, side: 4)
        let row = stride(from: 0, to: 12, by: 3).map { values[$0] }
        XCTAssertEqual(row, [-1, 0, 1, 1])
    }

    func testDecodingMatchesTheReference() {
        var random = SplitMix64(seed: 7)
        let count = 500
        func uniform(_ low: Float, _ high: Float) -> Float { low + (high - low) * Float(unit(&random)) }
        var anchors: [Float] = [], encodings: [Float] = []
        for _ in 0..<count {
            anchors += [uniform(0, 1), uniform(0, 1), uniform(0.05, 1), uniform(0.05, 1)]
            encodings += [uniform(-10, 10), uniform(-10, 10), uniform(-5, 5), uniform(-5, 5)]
        }
        let scales: [Float] = [10, 10, 5, 5]
        let fast = anchors.withUnsafeBufferPointer { anchors in
            encodings.withUnsafeBufferPointer { encodings in
                AnchorBoxDecoding.decode(
                    boxEncodings: encodings.baseAddress!, anchors: anchors.baseAddress!, scales: scales,
                    indices: Array(0..<count))
            }
        }
        let reference = AnchorBoxDecoding.referenceDecode(boxEncodings: encodings, anchors: anchors, scales: scales)
        for (index, (box, expected)) in zip(fast, reference).enumerated() {
            for (value, wanted) in [(box.top, expected.top), (box.left, expected.left), (box.bottom, expected.bottom), (box.right, expected.right)] {
                XCTAssertEqual(value, wanted, accuracy: Self.floatVersusDouble * max(1, abs(wanted)), "anchor \(index)")
            }
        }
    }

    func testScoresKeepExactlyTheAnchorsAtOrAboveTheThreshold() {
        var random = SplitMix64(seed: 3)
        let logits = (0..<(2 * 1000)).map { _ in Float(unit(&random) * 20 - 10) }
        for threshold: Float in [1e-8, 0.3, 0.5, 0.999] {
            let (indices, scores) = logits.withUnsafeBufferPointer {
                AnchorBoxDecoding.scores(
                    classLogits: $0.baseAddress!, anchorCount: 1000, classCount: 2, classIndex: 1,
                    logitScale: 1, minimumScore: threshold)
            }
            let expected = (0..<1000).filter { AnchorBoxDecoding.sigmoid(logits[$0 * 2 + 1]) >= threshold }
            XCTAssertEqual(indices, expected, "threshold \(threshold)")
            XCTAssertEqual(scores, expected.map { AnchorBoxDecoding.sigmoid(logits[$0 * 2 + 1]) })
        }
    }

    func testSuppressionMatchesTheNaiveVersionOnRandomCases() {
        var random = SplitMix64(seed: 11)
        func uniform(_ low: Float, _ high: Float) -> Float { low + (high - low) * Float(unit(&random)) }
        for trial in 0..<200 {
            let count = Int(random.next() % 60)
            var boxes: [NormalizedBox] = [], scores: [Float] = []
            for _ in 0..<count {
                // Clustered boxes so many overlap near the threshold; some flipped or empty; coarse scores so ties occur.
                let y = uniform(0, 0.3), x = uniform(0, 0.3)
                let height = trial % 7 == 0 ? 0 : uniform(-0.05, 0.5), width = uniform(0.01, 0.5)
                boxes.append(NormalizedBox(top: y, left: x, bottom: y + height, right: x + width))
                scores.append(Float(random.next() % 20) / 20)
            }
            for (threshold, maximum) in [(Float(0.6), 100), (0.3, 5), (0.9, 1000)] {
                let fast = NonMaximumSuppression.select(
                    boxes: boxes, scores: scores, overlapThreshold: threshold, scoreThreshold: 1e-8,
                    maximumCount: maximum)
                let naive = NonMaximumSuppression.referenceSelect(
                    boxes: boxes, scores: scores, overlapThreshold: threshold,
                    scoreThreshold: 1e-8, maximumCount: maximum)
                XCTAssertEqual(fast, naive, "trial \(trial), threshold \(threshold), maximum \(maximum)")
            }
        }
    }

    func testSuppressionKeepsTheBetterOfTwoOverlappingBoxesAndBothOfTwoApart() {
        let boxes = [
            NormalizedBox(top: 0, left: 0, bottom: 1, right: 1), NormalizedBox(top: 0, left: 0, bottom: 1, right: 0.9),
            NormalizedBox(top: 0, left: 0, bottom: 0.2, right: 0.2),
        ]
        // IoU of the first two is 0.9 > 0.6: the lower-scoring one goes; the small box overlaps the best by 0.04.
        XCTAssertEqual(
            NonMaximumSuppression.select(
                boxes: boxes, scores: [0.7, 0.8, 0.5], overlapThreshold: 0.6, scoreThreshold: 0,
                maximumCount: 10), [1, 2])
        // Equal scores: the lower index wins, as in TensorFlow.
        XCTAssertEqual(
            NonMaximumSuppression.select(
                boxes: boxes, scores: [0.8, 0.8, 0.5], overlapThreshold: 0.6, scoreThreshold: 0,
                maximumCount: 10), [0, 2])
    }
}

/// A uniform double in [0, 1) from the top 53 bits.
private func unit(_ random: inout SplitMix64) -> Double { Double(random.next() >> 11) / Double(1 << 53) }
