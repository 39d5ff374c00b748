import DetectionAnnotations
import DetectionMetrics
import DetectorTraining
import Foundation
import XCTest

/// The scores `train --json` and `evaluate --json` print: an undefined precision is left out (not 1), and the
/// boxes at the threshold are counted apart from the candidates at any score (issue 44).
final class DetectorScoresTests: XCTestCase {
    func testALabelWithoutBoxesAtTheThresholdHasNoPrecisionAndReportedBoxesAreCountedApart() throws {
        func box(_ left: Double) -> CornerBox { CornerBox(left: left, top: 0, right: left + 10, bottom: 10) }
        let images = [
            EvaluatedImage(
                groundTruth: [ObjectAnnotation(label: "dog", box: box(0)), ObjectAnnotation(label: "cat", box: box(40))],
                predictions: [
                    PredictedObject(label: "dog", score: 0.9, box: box(0)),
                    PredictedObject(label: "dog", score: 0.6, box: box(80)),
                    PredictedObject(label: "dog", score: 0.1, box: box(120)),
                    PredictedObject(label: "cat", score: 0.3, box: box(40)),
                ])
        ]
        let scores = DetectorScores(images, labels: ["dog", "cat"], threshold: 0.5)
        XCTAssertEqual(scores.labels.map(\.reportedBoxes), [2, 0])
        XCTAssertEqual(scores.labels.map(\.candidateBoxes), [3, 1])
        XCTAssertEqual([scores.reportedBoxes, scores.candidateBoxes], [2, 4])
        XCTAssertEqual(scores.labels[0].precision, 0.5)
        XCTAssertNil(scores.labels[1].precision, "no cat box at 0.5: undefined, not 1")
        XCTAssertEqual(scores.labels[1].recall, 0)
        XCTAssertEqual(scores.precision, 0.5, "pooled over the labels' reported boxes")

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: try encoder.encode(scores)) as? [String: Any])
        let labels = try XCTUnwrap(json["labels"] as? [[String: Any]])
        XCTAssertNil(labels[1]["precision"], "left out, as an undefined AP is")
        XCTAssertEqual(labels[1]["reportedBoxes"] as? Int, 0)
        XCTAssertEqual(labels[1]["candidateBoxes"] as? Int, 1)
        XCTAssertEqual(labels[0]["precision"] as? Double, 0.5)
        XCTAssertEqual(json["reportedBoxes"] as? Int, 2)
        XCTAssertEqual(json["candidateBoxes"] as? Int, 4)

        // A report written before the counts (inspect reads the one a model file embeds) still decodes.
        var old = json
        old["reportedBoxes"] = nil
        old["candidateBoxes"] = nil
        old["labels"] = labels.map { label in label.filter { !["reportedBoxes", "candidateBoxes"].contains($0.key) } }
        let decoded = try JSONDecoder().decode(DetectorScores.self, from: try JSONSerialization.data(withJSONObject: old))
        XCTAssertNil(decoded.reportedBoxes)
        XCTAssertEqual(decoded.labels[0].precision, 0.5)
    }
}
