import Foundation
import XCTest
@testable import Export

final class CoreMLExportTests: XCTestCase {
    /// coremltools loads the spec, the interface is an RGB 224 × 224 image classifier with `classLabel` and
    /// `classLabelProbs`, and an independent numpy interpretation of the exported layers gives Workbench's
    /// probabilities within 1e-4 with the same top-1.
    func testNumpyInterpreterMatchesWorkbench() throws {
        let network = try ExportFixtures.network()
        let model = try ExportFixtures.modelFile()
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("classifier.mlmodel").path
        try CoreMLExporter.export(model: model, network: network, to: path)

        let images = try ExportFixtures.images()
        let result = try PythonChecker.check(
            script: "check-coreml-export.py", model: path,
            images: try ExportFixtures.writeImages(images, to: folder), folder: folder)
        XCTAssertEqual(result["labels"] as? [String], model.labels, "stringClassLabels in output order")
        let metadata = try XCTUnwrap(result["metadata"] as? [String: Any])
        let userDefined = try XCTUnwrap(metadata["userDefined"] as? [String: String])
        XCTAssertNotNil(userDefined["preprocessing"])
        XCTAssertEqual(metadata["versionString"] as? String, model.creationDate)

        let expected = ExportFixtures.workbenchProbabilities(images, model: model, network: network)
        let exported = try PythonChecker.probabilities(result)
        let largest = ExportFixtures.compare(exported, expected, images: images, format: "Core ML")
        XCTAssertEqual(result["classLabel"] as? [String], expected.map { model.labels[ExportFixtures.argmax($0)] })
        print("Core ML export: max |Δprobability| vs Workbench = \(largest) over \(images.count) images")
    }

    /// The image scaler reproduces `(pixel − 127) / 128` exactly and ReLU6 is a clip layer, which needs
    /// specification version 4.
    func testScalerAndClipLayers() throws {
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("classifier.mlmodel").path
        try CoreMLExporter.export(model: try ExportFixtures.modelFile(), network: try ExportFixtures.network(), to: path)
        let model = try CoreML_Specification_Model(serializedBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        XCTAssertEqual(model.specificationVersion, 4)
        let scaler = try XCTUnwrap(model.neuralNetworkClassifier.preprocessing.first?.scaler)
        XCTAssertEqual(scaler.channelScale, 1.0 / 128)
        XCTAssertEqual([scaler.redBias, scaler.greenBias, scaler.blueBias], [-127.0 / 128, -127.0 / 128, -127.0 / 128])
        let layers = model.neuralNetworkClassifier.layers
        let stem = try XCTUnwrap(layers.first { $0.name == "stem" }?.convolution)
        XCTAssertEqual(stem.valid.paddingAmounts.borderAmounts.map { [$0.startEdgeSize, $0.endEdgeSize] }, [[0, 1], [0, 1]])
        XCTAssertEqual(
            layers.filter { $0.clip.maxVal == 6 && $0.name.hasSuffix(".relu6") }.count, 1 + 16 + 15 + 1,
            "ReLU6 after the stem, every depthwise, every expand (15 blocks) and the head")
        XCTAssertEqual(layers.first?.input, ["image"])
        XCTAssertEqual(layers.last?.output, ["classLabelProbs"])
        // Calibration: a diagonal inner product of 1 / temperature between the classifier and the softmax.
        let calibration = try XCTUnwrap(layers.first { $0.name == "calibration" })
        XCTAssertEqual(calibration.input, ["logits"])
        XCTAssertEqual(layers.last?.input, calibration.output)
        let scale = Float(1 / ExportFixtures.temperature)
        XCTAssertEqual(calibration.innerProduct.weights.floatValue, [scale, 0, 0, 0, scale, 0, 0, 0, scale])
        XCTAssertFalse(calibration.innerProduct.hasBias_p)
        XCTAssertEqual(model.description_p.metadata.userDefined["temperature"], "1.7")
    }
}
