import Augmentation
import Foundation
import ImageCodecs
import ModelFiles
import SwiftProtobuf
import XCTest
import _TestSupport
@testable import Export

/// Test-time augmentation carried by the ONNX export: the views are built inside the graph (Slice + two Resize
/// passes rounded like Workbench's 8-bit resampler, Gather for the mirror) and the probabilities averaged there.
/// onnxruntime on the export must give what Workbench gives with the same views (`TestTimeViews.render`, the path
/// `classify --tta` takes) and the mean of their probabilities, within the export tolerance and with the same top-1.
final class TestTimeViewsExportTests: XCTestCase {
    func testONNXRuntimeAveragesTheSameViewsAsWorkbench() throws {
        try checkAgreement(views: TestTimeViews(mirrors: true), imageCount: 2)
    }

    /// A model trained with --no-flip: two views, never mirrored, in Workbench and in the graph alike (two of the
    /// images, as above: the views' code is the one checked there).
    func testONNXRuntimeLeavesMirrorsOutForANoFlipModel() throws {
        let path = try checkAgreement(views: TestTimeViews(mirrors: false), imageCount: 2)
        let proto = try Onnx_ModelProto(serializedBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        XCTAssertFalse(proto.graph.node.contains { $0.opType == "Gather" }, "a no-flip model's graph mirrors nothing")
    }

    /// Exports the fixture model with `views`, runs it with onnxruntime on the first `imageCount` fixture images
    /// (the golden photos first), and compares with Workbench's views averaged by hand. Returns the export's path.
    @discardableResult
    private func checkAgreement(views: TestTimeViews, imageCount: Int) throws -> String {
        let network = try ExportFixtures.network()
        let model = try ExportFixtures.modelFile()
        let folder = try ExportFixtures.temporaryFolder()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("averaged-\(views.count).onnx").path
        try ONNXExporter.export(model: model, network: network, views: views, to: path)

        let images = Array(try ExportFixtures.images().prefix(imageCount))
        let result = try PythonChecker.check(
            script: "check-onnx-export.py", model: path,
            images: try ExportFixtures.writeImages(images, to: folder), folder: folder)
        // Workbench's side: every view's pixels (normalisation undone exactly: 1/128 is a power of two), run by the
        // network, then the mean of the views' calibrated probabilities.
        var viewImages: [ExportFixtures.TestImage] = []
        for image in images {
            let inputs = views.render(RGBImage(width: 224, height: 224, pixels: image.pixels), preprocessing: model.preprocessing)
            for view in 0..<views.count {
                let values = inputs[(view * 224 * 224 * 3)..<((view + 1) * 224 * 224 * 3)]
                viewImages.append(
                    .init(
                        name: "\(image.name) view \(view + 1)",
                        pixels: values.map { UInt8(($0 * 128 + 127).rounded()) }))
            }
        }
        let perView = ExportFixtures.workbenchProbabilities(viewImages, model: model, network: network)
        let expected = images.indices.map { image in
            (0..<model.labels.count).map { label in
                (0..<views.count).map { perView[image * views.count + $0][label] }.reduce(0, +) / Float(views.count)
            }
        }
        let largest = ExportFixtures.compare(
            try PythonChecker.probabilities(result), expected, images: images,
            format: "ONNX with \(views.count) test-time views")
        ExportFixtures.compare(
            try PythonChecker.probabilities(result, key: "probabilities_unoptimized"), expected,
            images: images, format: "ONNX with \(views.count) views (no graph optimisation)")
        // The views must matter, or agreement would prove nothing about them.
        let plain = ExportFixtures.workbenchProbabilities(images, model: model, network: network)
        let moved = zip(plain, expected).map { zip($0, $1).map { abs($0 - $1) }.max()! }.max()!
        XCTAssertGreaterThan(moved, 10 * ExportFixtures.probabilityTolerance, "the views must change the probabilities")
        print(
            "ONNX export with \(views.count) test-time views: max |Δprobability| vs Workbench = \(largest); "
                + "the views moved probabilities by up to \(moved)")

        let proto = try Onnx_ModelProto(serializedBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let metadata = Dictionary(uniqueKeysWithValues: proto.metadataProps.map { ($0.key, $0.value) })
        XCTAssertEqual(
            metadata["test_time_augmentation"]?.hasPrefix("carried: the probabilities are the mean over \(views.count) views"),
            true, metadata["test_time_augmentation"] ?? "no test_time_augmentation metadata")
        return path
    }
}
