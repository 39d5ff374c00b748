import DetectionAnnotations
import Foundation
import XCTest
import _TestSupport

/// `detect --json` on pictures read back as annotations (issue 27: a person corrects a detector's output and trains
/// on it): the release binary's own writer, run inside the pictures' folder, then `AnnotationReader`.
final class DetectAnnotationsRoundTripTests: XCTestCase {
    func testDetectJSONReadsBackAsAnnotations() throws {
        let folder = try WorkbenchBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pictures = WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/DetectionTests/Fixtures/detector-images")
        // Pedestrians, a footballer, and a tree with nobody.
        for name in ["vtest-020s.jpg", "messi5.jpg", "tree-001s.jpg"] {
            try FileManager.default.copyItem(at: pictures.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let run = try WorkbenchBinary.runProcess(
            try WorkbenchBinary.path(), ["detect", ".", "--json", "--threads", "2"],
            environment: ProcessInfo.processInfo.environment, workingDirectory: folder)
        XCTAssertEqual(run.status, 0, run.standardError)
        let file = folder.appendingPathComponent("annotations.json")
        try Data(run.standardOutput.utf8).write(to: file)
        // A picture added after the run has no entry: a negative.
        try FileManager.default.copyItem(at: pictures.appendingPathComponent("blox.jpg"), to: folder.appendingPathComponent("blox.jpg"))

        let set = try AnnotationReader.read(folder: folder.path)
        let written = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]])
        XCTAssertEqual(set.images.map(\.name), written.map { $0["image"] as? String ?? "" })
        XCTAssertEqual(set.images.count, 3)
        var boxes = 0
        for (image, entry) in zip(set.images, written) {
            let annotations = try XCTUnwrap(entry["annotations"] as? [[String: Any]])
            XCTAssertEqual(image.objects.count, annotations.count, image.name)
            for (object, annotation) in zip(image.objects, annotations) {
                let coordinates = try XCTUnwrap(annotation["coordinates"] as? [String: Double])
                let box = CornerBox(
                    centerX: coordinates["x"]!, centerY: coordinates["y"]!, width: coordinates["width"]!,
                    height: coordinates["height"]!)
                XCTAssertEqual(object.label, annotation["label"] as? String)
                // detect clips its boxes to the picture, so nothing was cut on reading.
                XCTAssertEqual(object.box, box, image.name)
                boxes += 1
            }
        }
        XCTAssertGreaterThanOrEqual(boxes, 4, "people in the pictures")
        XCTAssertEqual(set.images.map(\.name), ["./messi5.jpg", "./tree-001s.jpg", "./vtest-020s.jpg"])
        XCTAssertEqual(set.images[1].objects, [], "nobody in the tree picture")
        XCTAssertEqual(set.labels, ["person"])
        XCTAssertEqual(set.negatives.map(\.name), ["blox.jpg"])
        XCTAssertEqual(set.notes.count, 1)
    }
}
