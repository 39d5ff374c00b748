import CenterNetHead
import DetectionAnnotations
import Foundation
import XCTest

/// The head's targets, losses and decoding against numpy (`scripts/fixtures/make-centernet-goldens.py` writes
/// `Fixtures/centernet-goldens.json` from "Objects as Points" and its published code, without Workbench): the
/// gradients are checked against central differences elsewhere, so these pin the values themselves.
final class CenterNetGoldenTests: XCTestCase {
    private func golden() throws -> [String: Any] {
        let folder = try XCTUnwrap(Bundle.module.url(forResource: "Fixtures", withExtension: nil), "Fixtures not in the test bundle")
        let data = try Data(contentsOf: folder.appendingPathComponent("centernet-goldens.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func grid(_ value: Any?) throws -> CenterNetGrid {
        let numbers = try XCTUnwrap(value as? [String: Int])
        return CenterNetGrid(
            width: try XCTUnwrap(numbers["width"]), height: try XCTUnwrap(numbers["height"]),
            stride: try XCTUnwrap(numbers["stride"]), labelCount: try XCTUnwrap(numbers["labels"]))
    }

    private func numbers(_ value: Any?, _ name: String) throws -> [Double] {
        try XCTUnwrap(value as? [Double], "\(name) is not a list of numbers")
    }

    private func targets(_ golden: [String: Any]) throws -> CenterNetTargets {
        let objects = try XCTUnwrap(golden["objects"] as? [[String: Any]]).map { object in
            let box = try numbers(object["box"], "box")
            return CenterNetObject(
                labelIndex: try XCTUnwrap(object["label"] as? Int),
                box: CornerBox(left: box[0], top: box[1], right: box[2], bottom: box[3]))
        }
        return CenterNetTargets(objects: objects, grid: try grid(golden["grid"]))
    }

    private func assertClose(_ actual: [Float], _ expected: [Double], tolerance: Double, _ what: String) {
        XCTAssertEqual(actual.count, expected.count, what)
        for (index, (a, e)) in zip(actual, expected).enumerated() where abs(Double(a) - e) > tolerance {
            XCTFail("\(what)[\(index)]: \(a), numpy \(e)")
            return
        }
    }

    func testTargetsEqualNumpys() throws {
        let golden = try golden()
        let expected = try XCTUnwrap(golden["targets"] as? [String: Any])
        let targets = try targets(golden)
        assertClose(targets.heatMap, try numbers(expected["heat"], "heat"), tolerance: 1e-7, "heat map")
        assertClose(targets.size, try numbers(expected["size"], "size"), tolerance: 1e-6, "size")
        assertClose(targets.offset, try numbers(expected["offset"], "offset"), tolerance: 1e-6, "offset")
        assertClose(targets.mask, try numbers(expected["mask"], "mask"), tolerance: 0, "mask")
        XCTAssertEqual(targets.collisions, expected["collisions"] as? Int)
        XCTAssertEqual(targets.maskedCount, 5, "five centre cells: two pairs of objects share one")
    }

    func testLossesEqualNumpys() throws {
        let golden = try golden()
        let case_ = try XCTUnwrap(golden["losses"] as? [String: Any])
        let outputs = CenterNetOutputs(
            heatLogits: try numbers(case_["logits"], "logits"), size: try numbers(case_["size"], "size"),
            offset: try numbers(case_["offset"], "offset"))
        let loss = CenterNetLoss(outputs: outputs, targets: try targets(golden))
        for (name, value) in [("heat_loss", loss.heat), ("size_loss", loss.size), ("offset_loss", loss.offset), ("total", loss.total)] {
            let expected = try XCTUnwrap(case_[name] as? Double, name)
            XCTAssertEqual(value, expected, accuracy: 1e-6 * max(1, abs(expected)), name)
        }
    }

    func testDecodingEqualsNumpys() throws {
        let case_ = try XCTUnwrap(try golden()["decoding"] as? [String: Any])
        let grid = try grid(case_["grid"])
        let outputs = CenterNetOutputs(
            heatLogits: try numbers(case_["logits"], "logits").map(Float.init),
            size: try numbers(case_["size"], "size").map(Float.init),
            offset: try numbers(case_["offset"], "offset").map(Float.init))
        let expected = try XCTUnwrap(case_["detections"] as? [[String: Any]])
        let count = try XCTUnwrap(case_["k"] as? Int)
        for (path, found) in [
            ("decode", CenterNetDecoder.decode(outputs, grid: grid, maximumCount: count)),
            ("reference", CenterNetDecoder.reference(outputs, grid: grid, maximumCount: count)),
        ] {
            XCTAssertEqual(found.count, expected.count, path)
            for (index, (detection, golden)) in zip(found, expected).enumerated() {
                let box = try numbers(golden["box"], "box")
                XCTAssertEqual(detection.labelIndex, golden["label"] as? Int, "\(path) #\(index): label")
                XCTAssertEqual(Double(detection.score), try XCTUnwrap(golden["score"] as? Double), accuracy: 1e-6, "\(path) #\(index): score")
                let corners = [detection.box.left, detection.box.top, detection.box.right, detection.box.bottom]
                for (side, (a, e)) in zip(corners, box).enumerated() {
                    XCTAssertEqual(a, e, accuracy: 1e-4, "\(path) #\(index): corner \(side)")
                }
            }
        }
    }
}
