import DetectionAnnotations
import DetectionMetrics
import FileFormats
import Foundation
import XCTest
import _TestSupport

/// Average precision and operating points against pycocotools' own numbers
/// (`scripts/fixtures/make-detection-metric-goldens.py` writes `Fixtures/detection-metric-goldens.json`), and the
/// fast path against the plain-loop reference on seeded random cases.
final class AveragePrecisionTests: XCTestCase {
    /// The issue's bound: the metrics match pycocotools to 1e-4. They agree far closer (the same operations in the
    /// same order, but for the means' summation order): on these cases the test also passed at 1e-14 on the means
    /// and at 0 on the Float-rounded APs and curves.
    static let goldenTolerance = 1e-4

    struct GoldenCase {
        var name: String
        var labels: [String]
        var images: [EvaluatedImage]
        var expected: [String: Any]
    }

    /// The golden file as plain values: objects `[String: Any]`, arrays `[Any]`, numbers `Int` (no fraction or
    /// exponent) or `Double`, strings, and `NSNull`. Read through FileFormats' parser, which keeps each number's
    /// text, so `Double(text)` gives the value Python wrote to the bit (Foundation's JSONSerialization on Linux
    /// does not: it reads 0.8999999999999999 as 0.8999999999999997).
    static func goldenFile() throws -> [String: Any] {
        let folder = try XCTUnwrap(Bundle.module.url(forResource: "Fixtures", withExtension: nil), "Fixtures not in the test bundle")
        let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent("detection-metric-goldens.json")))
        return try XCTUnwrap(plain(try JSONParser.parse(bytes)) as? [String: Any])
    }

    static func plain(_ value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .number(let text): return text.contains(where: { ".eE".contains($0) }) ? Double(text) ?? .nan : Int(text) ?? Double(text) ?? .nan
        case .string(let text): return text
        case .array(let elements): return elements.map(plain)
        case .object(let members): return members.mapValues(plain)
        }
    }

    /// A golden number, written as an integer or not.
    static func number(_ value: Any?) -> Double? {
        if let integer = value as? Int { return Double(integer) }
        return value as? Double
    }

    static func goldenCases() throws -> [GoldenCase] {
        let cases = try XCTUnwrap(try goldenFile()["cases"] as? [[String: Any]])
        return try cases.map { entry in
            let images = try XCTUnwrap(entry["images"] as? [[String: Any]]).map { image in
                EvaluatedImage(
                    groundTruth: (image["groundTruth"] as? [[Any]] ?? []).map {
                        ObjectAnnotation(label: $0[0] as? String ?? "", box: box($0[1...]))
                    },
                    predictions: (image["predictions"] as? [[Any]] ?? []).map {
                        PredictedObject(label: $0[0] as? String ?? "", score: number($0[1]) ?? .nan, box: box($0[2...]))
                    })
            }
            return GoldenCase(
                name: entry["name"] as? String ?? "", labels: entry["labels"] as? [String] ?? [], images: images,
                expected: entry["expected"] as? [String: Any] ?? [:])
        }
    }

    static func box(_ values: ArraySlice<Any>) -> CornerBox {
        let numbers = values.map { number($0) ?? .nan }
        return CornerBox(left: numbers[0], top: numbers[1], right: numbers[2], bottom: numbers[3])
    }

    private func assertNear(
        _ actual: Double?, _ expected: Any?, _ what: String, tolerance: Double = goldenTolerance,
        line: UInt = #line
    ) {
        let expectedNumber = Self.number(expected)
        guard let actual, let expectedNumber else {
            XCTAssertTrue(
                actual == nil && expectedNumber == nil, "\(what): \(String(describing: actual)) vs \(String(describing: expected))", line: line)
            return
        }
        XCTAssertLessThanOrEqual(abs(actual - expectedNumber), tolerance, "\(what): \(actual) vs pycocotools \(expectedNumber)", line: line)
    }

    func testThresholdsAreNumpysToTheBit() throws {
        for golden in try Self.goldenCases() {
            XCTAssertEqual(AveragePrecision.intersectionThresholds, golden.expected["iouThresholds"] as? [Double])
            XCTAssertEqual(AveragePrecision.recallThresholds, golden.expected["recallThresholds"] as? [Double])
        }
    }

    func testAveragePrecisionMatchesPycocotools() throws {
        let cases = try Self.goldenCases()
        XCTAssertEqual(cases.map(\.name), ["crowded", "ties", "exact", "many"])
        for golden in cases {
            for report in [
                AveragePrecision.evaluate(golden.images, labels: golden.labels),
                AveragePrecisionReference.evaluate(golden.images, labels: golden.labels),
            ] {
                let expectedLabels = try XCTUnwrap(golden.expected["labels"] as? [String: Any])
                XCTAssertEqual(report.labels.map(\.label), golden.labels)
                for label in report.labels {
                    let expected = (expectedLabels[label.label] as? [String: Any])?.mapValues { ($0 as? [Any] ?? []).compactMap(Self.number) }
                    XCTAssertEqual(label.byThreshold == nil, expected == nil, "\(golden.name) \(label.label): ground truth or not")
                    guard let expected, let byThreshold = label.byThreshold, let curve = label.precisionCurve else { continue }
                    assertClose(
                        byThreshold.map { Float($0) }, expected["byThreshold"]!.map { Float($0) }, absolute: Float(Self.goldenTolerance),
                        "\(golden.name) \(label.label): AP per IoU threshold")
                    assertClose(
                        curve.map { Float($0) }, expected["precisionCurve"]!.map { Float($0) }, absolute: Float(Self.goldenTolerance),
                        "\(golden.name) \(label.label): precision at IoU 0.5")
                }
                assertNear(report.meanAveragePrecision50, golden.expected["meanAveragePrecision50"], "\(golden.name) mAP@0.5")
                assertNear(report.meanAveragePrecision, golden.expected["meanAveragePrecision"], "\(golden.name) mAP@0.5:0.95")
            }
        }
    }

    /// The hand-built case: IoUs of exactly 0.5 and 0.75 match at those thresholds only, and of two equal
    /// overlaps the later box is taken, which lets the next prediction take the earlier one.
    func testExactCaseFollowsPycocotoolsRules() throws {
        let golden = try XCTUnwrap(try Self.goldenCases().first { $0.name == "exact" })
        let report = AveragePrecision.evaluate(golden.images, labels: golden.labels)
        let c = try XCTUnwrap(report.labels.first { $0.label == "c" }?.byThreshold)
        // Both "c" predictions match at every threshold up to 0.8 (IoU 9/11 and 1): precision 1 at full recall.
        XCTAssertEqual(c[0], 1, accuracy: 1e-9)
        XCTAssertEqual(c[6], 1, accuracy: 1e-9)
        let a = try XCTUnwrap(report.labels.first { $0.label == "a" }?.byThreshold)
        XCTAssertGreaterThan(a[0], a[1], "IoU 0.5 exactly matches at 0.5, not at 0.55")
    }

    func testOperatingPointsMatchPycocotoolsMatches() throws {
        for golden in try Self.goldenCases() {
            let groups = try XCTUnwrap(golden.expected["operatingPoints"] as? [String: [String: Any]])
            for (name, group) in groups {
                let label = name.isEmpty ? nil : name
                let what = "\(golden.name) \(label ?? "all labels")"
                for expected in try XCTUnwrap(group["at"] as? [[String: Any]]) {
                    let threshold = try XCTUnwrap(Self.number(expected["threshold"]))
                    let point = OperatingPoint.at(threshold: threshold, in: golden.images, label: label)
                    assertPoint(point, expected, "\(what) at \(threshold)")
                }
                let best = OperatingPoint.bestF1(in: golden.images, label: label)
                if let expected = group["bestF1"] as? [String: Any] {
                    let point = try XCTUnwrap(best, "\(what): no best F1")
                    XCTAssertEqual(point.threshold, Self.number(expected["threshold"]), "\(what) best F1's threshold")
                    assertPoint(point, expected, "\(what) best F1")
                } else {
                    XCTAssertNil(best, "\(what): no prediction, so no best F1")
                }
            }
        }
    }

    private func assertPoint(_ point: OperatingPoint, _ expected: [String: Any], _ what: String, line: UInt = #line) {
        XCTAssertEqual(point.truePositives, expected["truePositives"] as? Int, "\(what) true positives", line: line)
        XCTAssertEqual(point.falsePositives, expected["falsePositives"] as? Int, "\(what) false positives", line: line)
        XCTAssertEqual(point.groundTruthCount, expected["groundTruthCount"] as? Int, "\(what) ground truth", line: line)
        assertNear(point.precision, expected["precision"], "\(what) precision", tolerance: 1e-12, line: line)
        assertNear(point.recall, expected["recall"], "\(what) recall", tolerance: 1e-12, line: line)
        assertNear(point.f1, expected["f1"], "\(what) F1", tolerance: 1e-12, line: line)
    }

    /// Seeded random cases with heavy overlap and many ties: the fast path and the reference agree exactly on
    /// every label's AP at every threshold and on the curve.
    func testFastPathEqualsThePlainLoops() {
        var generator = SeededGenerator(seed: 27)
        for round in 0..<40 {
            let labels = ["a", "b", "c"].prefix(1 + round % 3).map { $0 }
            var images: [EvaluatedImage] = []
            for _ in 0..<(1 + round % 6) {
                var truth: [ObjectAnnotation] = [], predictions: [PredictedObject] = []
                for _ in 0..<Int.random(in: 0...6, using: &generator) {
                    truth.append(ObjectAnnotation(label: labels.randomElement(using: &generator)!, box: randomBox(&generator)))
                }
                for _ in 0..<Int.random(in: 0...9, using: &generator) {
                    // Scores from a few values, so ties are common; boxes near the ground truth half the time.
                    let score = Double(Int.random(in: 0...4, using: &generator)) / 4
                    let box: CornerBox
                    if let near = truth.randomElement(using: &generator), Bool.random(using: &generator) {
                        box = nudged(near.box, &generator)
                    } else {
                        box = randomBox(&generator)
                    }
                    predictions.append(PredictedObject(label: labels.randomElement(using: &generator)!, score: score, box: box))
                }
                images.append(EvaluatedImage(groundTruth: truth, predictions: predictions))
            }
            XCTAssertEqual(AveragePrecision.evaluate(images), AveragePrecisionReference.evaluate(images), "round \(round)")
        }
    }

    func testNoPredictionsAndNoGroundTruth() {
        let truth = ObjectAnnotation(label: "dog", box: CornerBox(left: 0, top: 0, right: 10, bottom: 10))
        let report = AveragePrecision.evaluate([EvaluatedImage(groundTruth: [truth], predictions: [])], labels: ["dog", "cat"])
        XCTAssertEqual(report.labels[0].byThreshold, [Double](repeating: 0, count: 10))
        XCTAssertNil(report.labels[1].byThreshold)
        XCTAssertEqual(report.meanAveragePrecision50, 0)
        XCTAssertNil(AveragePrecision.evaluate([]).meanAveragePrecision)
        XCTAssertNil(OperatingPoint.bestF1(in: [EvaluatedImage(groundTruth: [truth], predictions: [])]))
        let nothing = OperatingPoint.at(threshold: 0.5, in: [EvaluatedImage(groundTruth: [truth], predictions: [])])
        // Nothing reported: precision is undefined (pycocotools' −1), not 1; recall and F1 are 0.
        XCTAssertNil(nothing.precision)
        XCTAssertEqual(nothing.reportedCount, 0)
        XCTAssertEqual([nothing.recall, nothing.f1], [0, 0])
    }

    private func randomBox(_ generator: inout SeededGenerator) -> CornerBox {
        let left = Double(Int.random(in: 0...80, using: &generator)) / 2, top = Double(Int.random(in: 0...80, using: &generator)) / 2
        return CornerBox(
            left: left, top: top, right: left + Double(Int.random(in: 2...40, using: &generator)),
            bottom: top + Double(Int.random(in: 2...40, using: &generator)))
    }

    private func nudged(_ box: CornerBox, _ generator: inout SeededGenerator) -> CornerBox {
        let shift = { (generator: inout SeededGenerator) in Double(Int.random(in: -3...3, using: &generator)) / 2 }
        let left = box.left + shift(&generator), top = box.top + shift(&generator)
        return CornerBox(
            left: left, top: top, right: max(left + 1, box.right + shift(&generator)),
            bottom: max(top + 1, box.bottom + shift(&generator)))
    }
}
