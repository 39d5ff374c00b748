import Foundation
import LogisticHead
import XCTest

final class MetricsTests: XCTestCase {
    /// Hand-built example, rows = truth, columns = predicted:
    ///
    ///               pred 0  pred 1  pred 2  pred 3 | support
    ///     truth 0      5       1       0       0   |   6
    ///     truth 1      2       3       1       0   |   6
    ///     truth 2      0       0       0       0   |   0   (no samples)
    ///     truth 3      1       0       0       2   |   3
    ///     predicted    8       4       1       2   |  15
    ///
    /// accuracy  = (5 + 3 + 0 + 2) / 15 = 2/3
    /// precision = 5/8, 3/4, 0/1, 2/2            = 0.625, 0.75, 0, 1
    /// recall    = 5/6, 3/6, 0 (no support), 2/3
    /// F1 = 2·TP / (2·TP + FP + FN) = 10/14, 6/10, 0, 4/5 = 5/7, 0.6, 0, 0.8
    /// macro precision = 2.375 / 4 = 0.59375; macro recall = (5/6 + 1/2 + 0 + 2/3) / 4 = 0.5;
    /// macro F1 = (5/7 + 3/5 + 0 + 4/5) / 4 = (5/7 + 7/5) / 4 = 74/140 = 37/70.
    private func handBuiltMatrix() -> ConfusionMatrix {
        var matrix = ConfusionMatrix(classCount: 4)
        let cells: [(truth: Int, predicted: Int, count: Int)] = [
            (0, 0, 5), (0, 1, 1), (1, 0, 2), (1, 1, 3), (1, 2, 1), (3, 0, 1), (3, 3, 2),
        ]
        for cell in cells {
            for _ in 0..<cell.count { matrix.add(truth: cell.truth, predicted: cell.predicted) }
        }
        return matrix
    }

    func testHandBuiltExample() {
        let matrix = handBuiltMatrix()
        XCTAssertEqual(matrix.counts, [[5, 1, 0, 0], [2, 3, 1, 0], [0, 0, 0, 0], [1, 0, 0, 2]])
        XCTAssertEqual(matrix.total, 15)
        XCTAssertEqual(matrix.support, [6, 6, 0, 3])
        XCTAssertEqual(matrix.predictedCounts, [8, 4, 1, 2])
        XCTAssertEqual(matrix.accuracy, 2.0 / 3.0, accuracy: 1e-12)
        let expectedPrecision = [0.625, 0.75, 0, 1]
        let expectedRecall = [5.0 / 6.0, 0.5, 0, 2.0 / 3.0]
        let expectedF1 = [5.0 / 7.0, 0.6, 0, 0.8]
        for index in 0..<4 {
            XCTAssertEqual(matrix.precision[index], expectedPrecision[index], accuracy: 1e-12, "precision \(index)")
            XCTAssertEqual(matrix.recall[index], expectedRecall[index], accuracy: 1e-12, "recall \(index)")
            XCTAssertEqual(matrix.f1[index], expectedF1[index], accuracy: 1e-12, "f1 \(index)")
        }
        XCTAssertEqual(matrix.macroPrecision, 0.59375, accuracy: 1e-12)
        XCTAssertEqual(matrix.macroRecall, 0.5, accuracy: 1e-12)
        XCTAssertEqual(matrix.macroF1, 37.0 / 70.0, accuracy: 1e-12)
    }

    func testBuildingFromListsMatchesAddingOneByOne() {
        let truths = [0, 0, 1, 2, 2, 2]
        let predictions = [0, 1, 1, 2, 0, 2]
        var added = ConfusionMatrix(classCount: 3)
        for (truth, predicted) in zip(truths, predictions) { added.add(truth: truth, predicted: predicted) }
        XCTAssertEqual(ConfusionMatrix(classCount: 3, truths: truths, predictions: predictions), added)
    }

    func testEmptyMatrixHasZeroMetrics() {
        let matrix = ConfusionMatrix(classCount: 2)
        XCTAssertEqual(matrix.accuracy, 0)
        XCTAssertEqual(matrix.precision, [0, 0])
        XCTAssertEqual(matrix.recall, [0, 0])
        XCTAssertEqual(matrix.f1, [0, 0])
        XCTAssertEqual(matrix.macroF1, 0)
    }

    func testJSONRoundTrip() throws {
        let matrix = handBuiltMatrix()
        let decoded = try JSONDecoder().decode(ConfusionMatrix.self, from: JSONEncoder().encode(matrix))
        XCTAssertEqual(decoded, matrix)
        let summary = try JSONDecoder().decode(ClassificationMetrics.self, from: JSONEncoder().encode(matrix.summary))
        XCTAssertEqual(summary, matrix.summary)
        XCTAssertEqual(summary.support, [6, 6, 0, 3])
    }

    func testDecodingRejectsMisshapenCounts() {
        let json = Data(#"{"classCount": 2, "counts": [[1, 0], [0]]}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(ConfusionMatrix.self, from: json))
        let negative = Data(#"{"classCount": 1, "counts": [[-1]]}"#.utf8)
        XCTAssertThrowsError(try JSONDecoder().decode(ConfusionMatrix.self, from: negative))
    }
}
