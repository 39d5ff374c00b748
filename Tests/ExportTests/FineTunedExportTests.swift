import FileFormats
import Foundation
import ImageCodecs
import Models
import ModelFiles
import SwiftProtobuf
import XCTest
import _TestSupport
@testable import Export

/// Export agreement on a fine-tuned model: a model file whose top blocks carry trained-style values (the shared
/// contract: conv weight = trained folded weight, bn weight 1, bn bias = trained folded bias, running mean 0,
/// running variance 1 − ε), written and read back, exported, and run by onnxruntime and the Core ML interpreter
/// against Workbench's own network built from the same file.
final class FineTunedExportTests: XCTestCase {
    /// Fine-tuning must move the probabilities far beyond the export tolerance, or agreement would prove nothing.
    static let smallestMeaningfulChange: Float = 10 * ExportFixtures.probabilityTolerance

    func testONNXRuntimeMatchesWorkbenchOnAFineTunedModel() throws {
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tuned.onnx").path
        let run = try exportAndCheck(
            to: path, in: folder, script: "check-onnx-export.py", format: "ONNX (fine-tuned)",
            export: { try ONNXExporter.export(model: $0, network: $1, to: $2) })
        let tuned = run.tuned, result = run.result
        print(
            "ONNX export of a fine-tuned model: max |Δprobability| vs Workbench = \(run.largest); fine-tuning moved "
                + "probabilities by up to \(run.moved)")

        let preprocessing = try XCTUnwrap(result["preprocessing"] as? [String: Any])
        XCTAssertEqual(preprocessing["version"] as? Int, 1)
        XCTAssertEqual(preprocessing["alphaBackground"] as? [Int], [255, 255, 255])
        let proto = try Onnx_ModelProto(serializedBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let metadata = Dictionary(uniqueKeysWithValues: proto.metadataProps.map { ($0.key, $0.value) })
        XCTAssertEqual(
            metadata["backbone_training"],
            "fine-tuned from block 13: blocks 13–15 and the final 1×1 convolution, 3 epochs, "
                + "augmentations: horizontal flip, rotation ±10°")
        let record = try JSONDecoder().decode(FineTuningRecord.self, from: Data(try XCTUnwrap(metadata["fine_tuning"]).utf8))
        XCTAssertEqual(record, tuned.model.fineTuning)
        XCTAssertTrue(proto.docString.contains("fine-tuned from block 13"), proto.docString)
    }

    func testCoreMLInterpreterMatchesWorkbenchOnAFineTunedModel() throws {
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tuned.mlmodel").path
        let run = try exportAndCheck(
            to: path, in: folder, script: "check-coreml-export.py", format: "Core ML (fine-tuned)",
            export: { try CoreMLExporter.export(model: $0, network: $1, to: $2) })
        let result = run.result
        XCTAssertEqual(result["classLabel"] as? [String], run.expected.map { run.tuned.model.labels[ExportFixtures.argmax($0)] })
        print("Core ML export of a fine-tuned model: max |Δprobability| vs Workbench = \(run.largest)")

        let metadata = try XCTUnwrap(result["metadata"] as? [String: Any])
        let userDefined = try XCTUnwrap(metadata["userDefined"] as? [String: String])
        XCTAssertEqual(userDefined["backbone_training"]?.hasPrefix("fine-tuned from block 13: blocks 13–15"), true)
        XCTAssertNotNil(userDefined["fine_tuning"])
        let preprocessing = try XCTUnwrap(userDefined["preprocessing"])
        XCTAssertTrue(preprocessing.contains(#""alphaBackground":[255,255,255]"#), preprocessing)
        XCTAssertTrue(preprocessing.contains(#""version":1"#), preprocessing)
    }

    /// The fine-tuned fixture exported to `path` by `export` and run by `script` over the fixture images; fails
    /// unless fine-tuning moved Workbench's probabilities well beyond the export tolerance, and unless the exported
    /// model agrees with Workbench's network within it (`ExportFixtures.compare`).
    private func exportAndCheck(
        to path: String, in folder: URL, script: String, format: String,
        export: (_ model: ModelFile, _ network: EfficientNetLite0, _ path: String) throws -> Void
    ) throws -> (tuned: (model: ModelFile, network: EfficientNetLite0), result: [String: Any], expected: [[Float]], largest: Float, moved: Float) {
        let tuned = try FineTunedFixture.make(self)
        try export(tuned.model, tuned.network, path)
        let images = try ExportFixtures.images()
        let result = try PythonChecker.check(
            script: script, model: path,
            images: try ExportFixtures.writeImages(images, to: folder), folder: folder)
        let expected = ExportFixtures.workbenchProbabilities(images, model: tuned.model, network: tuned.network)
        let frozen = ExportFixtures.workbenchProbabilities(images, model: tuned.model, network: try ExportFixtures.network())
        let moved = largestDifference(expected, frozen)
        XCTAssertGreaterThan(moved, Self.smallestMeaningfulChange, "the fine-tuned backbone must change the probabilities measurably")
        let largest = ExportFixtures.compare(try PythonChecker.probabilities(result), expected, images: images, format: format)
        return (tuned, result, expected, largest, moved)
    }

    private func largestDifference(_ first: [[Float]], _ second: [[Float]]) -> Float {
        zip(first, second).flatMap { zip($0, $1).map { abs($0 - $1) } }.max() ?? 0
    }
}

/// A fine-tuned model built as the contract says, without the training loop: the export fixture's model with
/// blocks 13–15 and the final 1×1 convolution replaced by perturbed folded values.
enum FineTunedFixture {
    /// The first trained block: the top three blocks and the head convolution train.
    static let firstTrainedBlock = 13
    /// How far each trained weight moves from the pretrained folded one, relative: "a few percent".
    static let relativePerturbation: Float = 0.04

    /// The model as read back from disk, and the network built from its backbone tensors.
    static func make(_ testCase: XCTestCase) throws -> (model: ModelFile, network: EfficientNetLite0) {
        var model = try ExportFixtures.modelFile()
        var tensors = model.backboneTensors
        var generator = SeededGenerator(seed: 1_312)
        var trained: [String] = []
        for (convolution, batchNorm) in trainedPairs() {
            let weight = try XCTUnwrap(tensors[convolution], convolution)
            func values(_ suffix: String) throws -> [Float] { try XCTUnwrap(tensors["\(batchNorm).\(suffix)"]).values }
            let (foldedWeights, foldedBias) = fold(
                weight: weight, scale: try values("weight"), shift: try values("bias"),
                mean: try values("running_mean"), variance: try values("running_var"))
            let channels = weight.shape[0]
            tensors[convolution] = .init(
                shape: weight.shape,
                values: foldedWeights.map {
                    $0 * (1 + relativePerturbation * Float.random(in: -1...1, using: &generator))
                })
            tensors["\(batchNorm).weight"] = .init(shape: [channels], values: [Float](repeating: 1, count: channels))
            tensors["\(batchNorm).bias"] = .init(shape: [channels], values: foldedBias)
            tensors["\(batchNorm).running_mean"] = .init(shape: [channels], values: [Float](repeating: 0, count: channels))
            tensors["\(batchNorm).running_var"] = .init(
                shape: [channels], values: [Float](repeating: 1 - EfficientNetLite0Architecture.batchNormEpsilon, count: channels))
            trained += [convolution] + ["weight", "bias", "running_mean", "running_var"].map { "\(batchNorm).\($0)" }
        }
        model.backboneTensors = tensors
        model.fineTuning = FineTuningRecord(
            firstTrainedBlock: firstTrainedBlock, trainedTensorNames: trained, epochs: 3,
            augmentations: ["horizontal flip", "rotation ±10°"])

        let folder = try ExportFixtures.temporaryFolder()
        testCase.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("tuned.wbmodel").path
        try model.write(path: path)
        let loaded = try ModelFile.read(path: path, expectedBackboneShapes: BackboneWeights.expectedShapes)
        XCTAssertEqual(loaded.fineTuning, model.fineTuning)
        let network = try EfficientNetLite0(weights: SafetensorsFile(tensors: loaded.backboneTensors), path: path)
        return (loaded, network)
    }

    /// Each trained convolution with its batch norm.
    private static func trainedPairs() -> [(String, String)] {
        var pairs: [(String, String)] = []
        for block in EfficientNetLite0Architecture.blocks where block.index >= firstTrainedBlock {
            let prefix = "_blocks.\(block.index)."
            if block.hasExpansion { pairs.append((prefix + "_expand_conv.weight", prefix + "_bn0")) }
            pairs.append((prefix + "_depthwise_conv.weight", prefix + "_bn1"))
            pairs.append((prefix + "_project_conv.weight", prefix + "_bn2"))
        }
        pairs.append(("_conv_head.weight", "_bn1"))
        return pairs
    }

    /// `γ/√(σ² + ε)` multiplied into each output channel's weights, `β − μ·γ/√(σ² + ε)` as the bias, in double.
    private static func fold(weight: SafetensorsFile.Tensor, scale: [Float], shift: [Float], mean: [Float], variance: [Float])
        -> ([Float], [Float])
    {
        let channels = weight.shape[0], perChannel = weight.values.count / channels
        let epsilon = Double(EfficientNetLite0Architecture.batchNormEpsilon)
        var weights = weight.values, bias = [Float](repeating: 0, count: channels)
        for channel in 0..<channels {
            let factor = Double(scale[channel]) / (Double(variance[channel]) + epsilon).squareRoot()
            for index in (channel * perChannel)..<((channel + 1) * perChannel) {
                weights[index] = Float(Double(weights[index]) * factor)
            }
            bias[channel] = Float(Double(shift[channel]) - Double(mean[channel]) * factor)
        }
        return (weights, bias)
    }
}
