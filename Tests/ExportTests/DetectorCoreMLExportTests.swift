import CenterNetHead
import DetectorTraining
import Foundation
import Models
import ModelFiles
import XCTest
import _TestSupport
@testable import Export

/// A detector's Core ML pipeline, evaluated by `scripts/check/check-coreml-export.py`'s numpy interpreter (Core ML
/// does not run on Linux): coremltools loads the spec; the network's per-cell outputs equal Workbench's head and
/// decoder cell by cell (as the ONNX export's do); the suppression keeps, per label, the best peaks above the stored
/// threshold. The comparison with `detect --json` is `WorkbenchCLITests.DetectorExportCommandTests`.
final class DetectorCoreMLExportTests: XCTestCase {
    func testInterpreterMatchesTheHeadAndDecoderCellByCell() throws {
        let file = try DetectorONNXExportTests.detectorFile()
        let network = try ExportFixtures.network()
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("detector.mlmodel").path
        try CoreMLExporter.export(detector: file, network: network, to: path)

        let side = file.inputSide
        // Two of the ONNX test's images (a synthetic picture and noise): the float64 interpreter takes seconds each.
        let images = try DetectorONNXExportTests.images(side: side, folder: folder).enumerated().filter { [0, 2].contains($0.offset) }.map(\.element)
        let result = try PythonChecker.check(
            script: "check-coreml-export.py", model: path,
            images: try ExportFixtures.writeImages(images, to: folder), folder: folder)
        XCTAssertEqual(result["labels"] as? [String], file.labels)
        let metadata = try XCTUnwrap(result["metadata"] as? [String: String])
        XCTAssertEqual(metadata["score_threshold"], "0.375")
        XCTAssertEqual(metadata["iou_threshold"], "0.45")

        let expectedPeaks = DetectorONNXExportTests.workbenchPeaks(file: file, network: network, images: images)
        let labelCount = file.labels.count
        let confidence = try XCTUnwrap(result["raw_confidence"] as? [[[Double]]])
        let coordinates = try XCTUnwrap(result["raw_coordinates"] as? [[[Double]]])
        let kept = try XCTUnwrap(result["detections"] as? [[[Double]]])
        var peaksCompared = 0
        for (item, image) in images.enumerated() {
            let expected = expectedPeaks[item], found = DetectorONNXExportTests.peaks(confidence[item])
            XCTAssertEqual(found.count, expected.count, "\(image.name): peaks")
            for (peak, reference) in zip(found, expected) {
                XCTAssertEqual(peak.label, reference.labelIndex, "\(image.name): label of a peak")
                XCTAssertEqual(peak.score, Double(reference.score), accuracy: DetectorONNXExportTests.scoreTolerance, image.name)
                let box = reference.box.clipped(width: Double(side), height: Double(side))
                let centreAndSize = [(box.left + box.right) / 2, (box.top + box.bottom) / 2, box.right - box.left, box.bottom - box.top]
                assertClose(
                    coordinates[item][peak.cell].map(Float.init), centreAndSize.map { Float($0 / Double(side)) },
                    absolute: Float(DetectorONNXExportTests.boxTolerance), "\(image.name): box of cell \(peak.cell)")
                peaksCompared += 1
            }
            // The suppression keeps a subset of the peaks at or above the threshold, the best of each label first.
            let aboveThreshold = found.filter { $0.score >= 0.375 }
            XCTAssertLessThanOrEqual(kept[item].count, aboveThreshold.count, image.name)
            for label in 0..<labelCount {
                let best = aboveThreshold.first { $0.label == label }
                let keptFirst = kept[item].first { Int($0[0]) == label }
                XCTAssertEqual(keptFirst.map { Int($0[1]) }, best?.cell, "\(image.name): the best peak of label \(label) is kept")
            }
        }
        XCTAssertGreaterThan(peaksCompared, 8 * images.count, "the seeded head has many peaks")
    }

    /// The file is a pipeline of specification version 4: a neural network and a per-label non-maximum suppression
    /// wired by Create ML's feature names, with the labels and the stored threshold.
    func testPipelineLayout() throws {
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("detector.mlmodel").path
        try CoreMLExporter.export(detector: try DetectorONNXExportTests.detectorFile(), to: path)
        let model = try CoreML_Specification_Model(serializedBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        XCTAssertEqual(model.specificationVersion, 4)
        XCTAssertEqual(model.pipeline.models.count, 2)
        let suppression = model.pipeline.models[1].nonMaximumSuppression
        XCTAssertEqual(suppression.stringClassLabels.vector, ["square", "disc \"round\""])
        XCTAssertEqual(suppression.confidenceThreshold, 0.375)
        XCTAssertTrue(suppression.pickTop.perClass)
        XCTAssertEqual(model.description_p.output.map(\.name), ["confidence", "coordinates"])
        XCTAssertEqual(model.description_p.input.map(\.name), ["image", "iouThreshold", "confidenceThreshold"])
        let layers = model.pipeline.models[0].neuralNetwork.layers
        XCTAssertEqual(layers.first?.input, ["image"])
        XCTAssertTrue(Set(layers.flatMap(\.output)).isSuperset(of: ["raw_confidence", "raw_coordinates"]))
        XCTAssertEqual(layers.last?.reshape.targetShape, [1, 36, 4], "one row per cell of the 6 × 6 grid")
    }
}
