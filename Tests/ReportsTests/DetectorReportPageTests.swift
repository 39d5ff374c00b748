import DetectionAnnotations
import DetectionMetrics
import Foundation
import ImageCodecs
import XCTest
import _TestSupport
@testable import Pages
@testable import Reports

/// The detector's report page: pictures worst first with their boxes scaled with them, its markup under hostile
/// labels and file names, and Chromium's view of it.
final class DetectorReportPageTests: XCTestCase {
    private func box(_ left: Double, _ top: Double, _ right: Double, _ bottom: Double) -> CornerBox {
        CornerBox(left: left, top: top, right: right, bottom: bottom)
    }

    /// Three pictures: one all right, one with a miss and a false box, one with a miss; the second is 600 px wide.
    private func pictures(in folder: URL, label: String = "dog", file: String = "b") throws -> [DetectorReports.TestedPicture] {
        func write(_ name: String, width: Int, height: Int) throws -> String {
            let pixels = (0..<(width * height * 3)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let path = folder.appendingPathComponent(name).path
            try Data(try PNGEncoder.encode(RGBImage(width: width, height: height, pixels: pixels), name: name)).write(to: URL(fileURLWithPath: path))
            return path
        }
        let dog = ObjectAnnotation(label: label, box: box(10, 10, 50, 40))
        return [
            .init(
                path: try write("a.png", width: 96, height: 64),
                evaluated: EvaluatedImage(groundTruth: [dog], predictions: [PredictedObject(label: label, score: 0.9, box: box(10, 11, 50, 40))])),
            .init(
                path: try write("\(file).png", width: 600, height: 300),
                evaluated: EvaluatedImage(
                    groundTruth: [
                        ObjectAnnotation(label: label, box: box(60, 60, 180, 180)),
                        ObjectAnnotation(label: "cat", box: box(300, 60, 420, 180)),
                    ],
                    predictions: [
                        PredictedObject(label: label, score: 0.8, box: box(360, 180, 540, 290)),
                        PredictedObject(label: "cat", score: 0.7, box: box(300, 60, 420, 180)),
                        PredictedObject(label: "cat", score: 0.1, box: box(0, 0, 20, 20)),
                    ])),
            .init(
                path: try write("c.png", width: 64, height: 64),
                evaluated: EvaluatedImage(groundTruth: [dog], predictions: [])),
        ]
    }

    func testPicturesComeWorstFirstWithTheirBoxesScaledAndOnlyReportedBoxesDrawn() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = DetectorReports.page(
            title: "t", subtitle: [], pictures: try pictures(in: folder), labels: ["dog", "cat"],
            threshold: 0.5, maximumPictures: 2)
        XCTAssertEqual(page.pictures.map { ($0.file as NSString).lastPathComponent }, ["b.png", "c.png"])
        XCTAssertEqual(page.picturesLeftOut, 1)
        let worst = page.pictures[0]
        XCTAssertEqual([worst.width, worst.height], [480, 240])
        XCTAssertEqual([worst.picture?.width, worst.picture?.height], [480, 240])
        XCTAssertEqual([worst.missed, worst.falsePositives], [1, 1])
        // Two objects and the two boxes at or above 0.5, all scaled by 480 / 600; the 0.1 box is not reported.
        XCTAssertEqual(worst.boxes.count, 4)
        for (box, expected) in zip(worst.boxes, [[48.0, 48, 144, 144], [240, 48, 336, 144], [288, 144, 432, 232], [240, 48, 336, 144]]) {
            for (value, wanted) in zip([box.left, box.top, box.right, box.bottom], expected) {
                XCTAssertEqual(value, wanted, accuracy: 1e-9)
            }
        }
        // 2 of 4 objects found (the dog in a.png, the cat in b.png); 2 of 3 reported boxes right.
        XCTAssertEqual(page.recall, 0.5, accuracy: 1e-12)
        XCTAssertEqual(try XCTUnwrap(page.precision), 2.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(page.labels.map(\.label), ["dog", "cat"])
        XCTAssertEqual(page.labels.map(\.objects), [3, 1])
    }

    /// Issue 44: a label with no box at the threshold showed precision 100 % beside recall 0, and "boxes predicted"
    /// counted every candidate at any score. Now its precision is a dash, the column counts the boxes at the
    /// threshold, and the candidates are a detail in the explanation.
    func testALabelWithoutBoxesAtTheThresholdHasNoPrecisionAndTheColumnCountsReportedBoxes() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // At 0.85 only a.png's dog (0.9) is reported: the cat's boxes (0.7, 0.1) are candidates only.
        let page = DetectorReports.page(
            title: "t", subtitle: [], pictures: try pictures(in: folder), labels: ["dog", "cat"], threshold: 0.85)
        XCTAssertEqual(page.labels.map(\.reported), [1, 0])
        XCTAssertEqual(page.labels.map(\.predictions), [2, 2])
        XCTAssertEqual([page.reported, page.candidates], [1, 4])
        XCTAssertEqual(page.labels[0].precision, 1)
        XCTAssertNil(page.labels[1].precision, "no cat box at 0.85: precision is undefined, not 1")
        XCTAssertEqual(page.labels[1].recall, 0)
        let html = page.html()
        XCTAssertTrue(html.contains("boxes at the threshold"), "the column's header")
        XCTAssertFalse(html.contains("boxes predicted"))
        // The cat's row: 1 object, 0 boxes, AP@0.5 100 % (its 0.7 box is right), a dash for precision, recall 0.
        XCTAssertTrue(
            html.contains(
                #"<th scope="row">cat</th><td class="number">1</td><td class="number">0</td><td class="number">100.0 %</td><td class="number">100.0 %</td><td class="number">—</td><td class="number">0.0 %</td>"#
            ), html)
        XCTAssertTrue(html.contains("1 box, precision 100.0 %"), "the headline counts the boxes at the threshold")
        XCTAssertTrue(html.contains("ranking all 4 candidate boxes at any score"), "the candidates are a detail")
        // No box at all at the threshold: the pooled precision is undefined too.
        let none = DetectorReports.page(title: "t", subtitle: [], pictures: try pictures(in: folder), labels: ["dog", "cat"], threshold: 0.95)
        XCTAssertNil(none.precision)
        XCTAssertTrue(none.html().contains("0 boxes, precision —"), none.html())
    }

    func testThePageKeepsItsMarkupAndIsolatesEveryName() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = DetectorReports.page(
            title: "Detector", subtitle: [], pictures: try pictures(in: folder), labels: ["dog", "cat"],
            threshold: 0.5)
        func page(_ name: String) -> String {
            // The same page with a hostile label and file name in every place they are written (without its
            // pictures, whose data the names cannot reach and which would only slow the scan).
            var named = base
            named.labels[0].label = name
            for card in named.pictures.indices {
                named.pictures[card].picture = nil
                named.pictures[card].file = card == 0 ? "\(name).png" : named.pictures[card].file
                for box in named.pictures[card].boxes.indices where named.pictures[card].boxes[box].label == "dog" {
                    named.pictures[card].boxes[box].label = name
                }
            }
            return named.html()
        }
        let plain = HostileNames.tagSequence(page("plain"))
        HostileNames.check("detector page", count: 100, includingNUL: true) { name in
            return HostileNames.markupProblem(page(name), plainTags: plain)
        }
    }

    func testChromiumShowsTheBoxesAndCurvesWithoutErrorsOrRequests() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let html = DetectorReports.page(
            title: "Detector: testing pictures", subtitle: ["model m.wbmodel"],
            pictures: try pictures(in: folder, label: "</script>"), labels: ["</script>", "cat"],
            threshold: 0.5
        ).html()
        let path = folder.appendingPathComponent("detector.html").path
        try html.write(toFile: path, atomically: true, encoding: .utf8)
        let check = try PageCheck.run(page: path, screenshot: "synthetic-detector.png")
        XCTAssertEqual(check.consoleErrors, [])
        XCTAssertEqual(check.outsideRequests(page: path), [])
        for text in [
            "</script>", "cat", "mAP@0.5", "b.png", "1 missed, 1 false box", "all found, no false box",
            "Precision against recall",
        ] {
            XCTAssertTrue(check.text.contains(text), text)
        }
    }
}
