import DetectionAnnotations
import DetectionMetrics
import XCTest

/// Each picture's true and false positives and missed objects at a threshold: summed over the pictures they are
/// pycocotools' counts at that threshold (the goldens), and a hand-made picture gives what one reads off it.
final class PictureOutcomeTests: XCTestCase {
    func testPicturesSumToPycocotoolsCountsAtEveryThreshold() throws {
        for golden in try AveragePrecisionTests.goldenCases() {
            let groups = try XCTUnwrap(golden.expected["operatingPoints"] as? [String: [String: Any]])
            let all = try XCTUnwrap(groups[""], "\(golden.name): no pooled operating points")
            for expected in try XCTUnwrap(all["at"] as? [[String: Any]]) {
                let threshold = try XCTUnwrap(AveragePrecisionTests.number(expected["threshold"]))
                let outcomes = golden.images.map { PictureOutcome.at(threshold: threshold, in: $0) }
                let truePositives = outcomes.reduce(0) { $0 + $1.predictionIsCorrect.filter { $0 == true }.count }
                let found = outcomes.reduce(0) { $0 + $1.groundTruthIsFound.filter { $0 }.count }
                let what = "\(golden.name) at \(threshold)"
                XCTAssertEqual(truePositives, expected["truePositives"] as? Int, "\(what): true positives")
                XCTAssertEqual(found, truePositives, "\(what): every true positive finds one object")
                XCTAssertEqual(
                    outcomes.reduce(0) { $0 + $1.falsePositives }, expected["falsePositives"] as? Int,
                    "\(what): false positives")
                XCTAssertEqual(
                    outcomes.reduce(0) { $0 + $1.missed },
                    (expected["groundTruthCount"] as? Int).map { $0 - truePositives }, "\(what): missed")
            }
        }
    }

    func testAHandMadePicture() {
        let dog = CornerBox(left: 10, top: 10, right: 50, bottom: 50), cat = CornerBox(left: 60, top: 10, right: 90, bottom: 40)
        let image = EvaluatedImage(
            groundTruth: [
                ObjectAnnotation(label: "dog", box: dog), ObjectAnnotation(label: "cat", box: cat),
                ObjectAnnotation(label: "dog", box: CornerBox(left: 0, top: 60, right: 20, bottom: 80)),
            ],
            predictions: [
                PredictedObject(label: "dog", score: 0.9, box: CornerBox(left: 12, top: 10, right: 50, bottom: 52)),
                PredictedObject(label: "dog", score: 0.8, box: CornerBox(left: 11, top: 11, right: 49, bottom: 49)),
                PredictedObject(label: "dog", score: 0.3, box: CornerBox(left: 0, top: 60, right: 20, bottom: 80)),
                PredictedObject(label: "dog", score: 0.7, box: cat),
            ])
        // The first dog box finds the dog; the second is a duplicate (false); the box on the cat has the wrong
        // label (false); the low-scoring box on the second dog is not reported at 0.5, so that dog and the cat are
        // missed.
        let outcome = PictureOutcome.at(threshold: 0.5, in: image)
        XCTAssertEqual(outcome.predictionIsCorrect, [true, false, nil, false])
        XCTAssertEqual(outcome.groundTruthIsFound, [true, false, false])
        XCTAssertEqual([outcome.missed, outcome.falsePositives, outcome.errors], [2, 2, 4])
        let everything = PictureOutcome.at(threshold: 0, in: image)
        XCTAssertEqual(everything.predictionIsCorrect, [true, false, true, false])
        XCTAssertEqual(everything.groundTruthIsFound, [true, false, true])
    }
}
