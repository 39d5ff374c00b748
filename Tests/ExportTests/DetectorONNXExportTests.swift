import CenterNetHead
import DetectorTraining
import FileFormats
import Foundation
import ImageCodecs
import Models
import ModelFiles
import SwiftProtobuf
import TrainableLayers
import XCTest
import _TestSupport
@testable import Export

/// A detector's ONNX export against Workbench's own head and decoder, cell by cell: every 3×3 peak that
/// `CenterNetDecoder.reference` finds is a non-zero score in the graph's output with the same box, and every other
/// (cell, label) scores 0. The `detect --json` comparison through the release binary is
/// `WorkbenchCLITests.DetectorExportCommandTests`.
final class DetectorONNXExportTests: XCTestCase {
    /// Scores are probabilities through ~50 float32 layers summed in another order: 1e-4 absolute, the classifier
    /// export's bound.
    static let scoreTolerance = 1e-4
    /// Box corners as fractions of the input: 1e-4 is 0.01 px at 96 px (the offsets and sizes are float32 sums too).
    static let boxTolerance = 1e-4

    /// A detector file over the real backbone at a 96-px input (6 × 6 cells) with a seeded head whose output layer
    /// is scaled up, so its heat maps have many distinct peaks and its boxes every size (negative sizes included).
    static func detectorFile(labels: [String] = ["square", "disc \"round\""], inputSide: Int = 96) throws -> DetectorModelFile {
        let backbone = try SafetensorsFile.read(path: ExportFixtures.weightsPath)
        var head = DetectorHeadNetwork<Float>(labelCount: labels.count, width: 16, seed: 27)
        head.output.weights = Tensor(shape: head.output.weights.shape, storage: head.output.weights.scalars.map { $0 * 150 })
        head.mergeBias.bias = Tensor(shape: head.mergeBias.bias.shape, storage: (0..<head.width).map { Float($0 % 5) * 0.1 - 0.2 })
        var tensors: [String: SafetensorsFile.Tensor] = [:]
        for (name, value) in head.namedParameters { tensors[name] = SafetensorsFile.Tensor(shape: value.shape, values: value.scalars) }
        return DetectorModelFile(
            labels: labels, preprocessing: .efficientNetLite0, backboneName: "efficientnet-lite0",
            backboneTensors: backbone.tensors, backboneIdentifier: String(repeating: "0", count: 64), headTensors: tensors,
            inputSide: inputSide, scoreThreshold: 0.375, creationDate: "2026-11-27T12:00:00Z", workbenchVersion: "0.0.0-test",
            trainingReportJSON: "{}")
    }

    /// Test inputs at `side`: two synthetic detection pictures, seeded noise and a bright frame (borders).
    static func images(side: Int, folder: URL) throws -> [ExportFixtures.TestImage] {
        let pictures = folder.appendingPathComponent("pictures")
        try SyntheticDetectionDataset.write(to: pictures, count: 2, side: side, seed: 5)
        var images: [ExportFixtures.TestImage] = try (0..<2).map { index in
            let name = String(format: "picture-%03d.png", index)
            return ExportFixtures.TestImage(name: name, pixels: try ImageLoader.load(path: pictures.appendingPathComponent(name).path).pixels)
        }
        var generator = SeededGenerator(seed: 99)
        images.append(
            ExportFixtures.TestImage(name: "noise", pixels: (0..<(side * side * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        images.append(
            ExportFixtures.TestImage(
                name: "framed",
                pixels: (0..<(side * side * 3)).map { index in
                    let (y, x) = (index / 3 / side, index / 3 % side)
                    return y < 8 || x < 8 || y >= side - 8 || x >= side - 8 ? 255 : UInt8(40 + index % 3 * 50)
                }))
        return images
    }

    func testONNXRuntimeMatchesTheHeadAndDecoderCellByCell() throws {
        let file = try Self.detectorFile()
        let network = try ExportFixtures.network()
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("detector.onnx").path
        try ONNXExporter.export(detector: file, network: network, to: path)

        let side = file.inputSide
        let images = try Self.images(side: side, folder: folder)
        let result = try PythonChecker.check(
            script: "check-onnx-detector-export.py", model: path,
            images: try ExportFixtures.writeImages(images, to: folder), folder: folder)
        XCTAssertEqual(result["labels"] as? [String], file.labels)
        let metadata = try XCTUnwrap(result["metadata"] as? [String: String])
        XCTAssertEqual(metadata["score_threshold"], "0.375")
        XCTAssertEqual(metadata["input_side"], "96")

        let expectedPeaks = Self.workbenchPeaks(file: file, network: network, images: images)
        var peaksCompared = 0
        for suffix in ["", "_unoptimized"] {
            let boxes = try XCTUnwrap(result["boxes" + suffix] as? [[[Double]]])
            let scores = try XCTUnwrap(result["scores" + suffix] as? [[[Double]]])
            for (item, image) in images.enumerated() {
                let expected = expectedPeaks[item], found = Self.peaks(scores[item])
                XCTAssertEqual(found.count, expected.count, "\(image.name)\(suffix): peaks")
                for (peak, reference) in zip(found, expected) {
                    XCTAssertEqual(peak.label, reference.labelIndex, "\(image.name)\(suffix): label of a peak")
                    XCTAssertEqual(peak.score, Double(reference.score), accuracy: Self.scoreTolerance, "\(image.name)\(suffix)")
                    let clipped = reference.box.clipped(width: Double(side), height: Double(side))
                    let corners = [clipped.left, clipped.top, clipped.right, clipped.bottom].map { $0 / Double(side) }
                    assertClose(
                        boxes[item][peak.cell].map(Float.init), corners.map(Float.init), absolute: Float(Self.boxTolerance),
                        "\(image.name)\(suffix): box of cell \(peak.cell)")
                    peaksCompared += 1
                }
            }
        }
        XCTAssertGreaterThan(peaksCompared, 8 * images.count, "the seeded head has many peaks")
    }

    /// The backbone runs at the detector's side: TF SAME pads are resolved for 96 px, not the classifier's 224, and
    /// the head reads block 10's output (stride 16) and block 15's (stride 32).
    func testBackboneIsResolvedAtTheDetectorsSide() throws {
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("detector.onnx").path
        try ONNXExporter.export(detector: try Self.detectorFile(), to: path)
        let model = try Onnx_ModelProto(serializedBytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        func node(_ name: String) throws -> Onnx_NodeProto { try XCTUnwrap(model.graph.node.first { $0.name == name }, name) }
        // 5×5 stride 2 on 12 px (block 3's input at 96): total 3 → 1 before, 2 after, as at 224 (on 56).
        XCTAssertEqual(try node("blocks.3.depthwise").attribute.first { $0.name == "pads" }?.ints, [1, 1, 2, 2])
        XCTAssertEqual(try node("detector.fine_projection").input.first, "blocks.10.residual")
        XCTAssertEqual(try node("detector.coarse_projection").input.first, "blocks.15.project")
        XCTAssertNil(model.graph.node.first { $0.name == "head" }, "no classifier head convolution")
        XCTAssertEqual(model.graph.output.map(\.name), ["boxes", "scores"])
    }

    /// Both formats: the same detector gives the same bytes twice, and rebuilding the backbone from the file's own
    /// tensors gives the file that passing the built network gives.
    func testDetectorExportsAreDeterministic() throws {
        let file = try Self.detectorFile(), network = try ExportFixtures.network()
        let folder = try ExportFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        func bytes(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        try ONNXExporter.export(detector: file, network: network, to: path("a.onnx"))
        try ONNXExporter.export(detector: file, network: network, to: path("b.onnx"))
        try ONNXExporter.export(detector: file, to: path("c.onnx"))
        XCTAssertEqual(try bytes("a.onnx"), try bytes("b.onnx"))
        XCTAssertEqual(try bytes("a.onnx"), try bytes("c.onnx"))
        try CoreMLExporter.export(detector: file, network: network, to: path("a.mlmodel"))
        try CoreMLExporter.export(detector: file, to: path("b.mlmodel"))
        XCTAssertEqual(try bytes("a.mlmodel"), try bytes("b.mlmodel"))
    }

    func testBrokenDetectorsAreRefusedWithTheOutputPath() throws {
        let path = "/tmp/never-written-\(UUID().uuidString).onnx"
        var file = try Self.detectorFile()
        file.headTensors["output.weights"] = SafetensorsFile.Tensor(shape: [16, 5], values: [Float](repeating: 0, count: 80))
        XCTAssertThrowsError(try ONNXExporter.export(detector: file, to: path)) { error in
            XCTAssertEqual((error as? ExportError)?.description, "\(path): tensor 'detector.output.weights' has shape [16, 5], expected [16, 6]")
        }
        file = try Self.detectorFile()
        file.inputSide = 100
        XCTAssertThrowsError(try ONNXExporter.export(detector: file, to: path)) { error in
            XCTAssertEqual((error as? ExportError)?.description, "\(path): the detector's input side 100 is not a multiple of 32 from 64 to 1024")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    /// `backbone_training` says what the file's training report says: frozen without fine-tuning or when it kept
    /// epoch 0 (the frozen head), the first trained block and the epoch when a fine-tuned epoch was kept.
    func testBackboneTrainingFollowsTheTrainingReport() throws {
        var file = try Self.detectorFile()
        XCTAssertEqual(ExportMetadata.detectorBackboneTraining(file), "pretrained ImageNet weights (frozen)")
        file.trainingReportJSON = #"{"fineTuning": {"firstTrainedBlock": 11, "chosenEpoch": 0}}"#
        XCTAssertEqual(ExportMetadata.detectorBackboneTraining(file), "pretrained ImageNet weights (frozen)")
        file.trainingReportJSON = #"{"chosenEpoch": 8, "fineTuning": {"firstTrainedBlock": 11, "chosenEpoch": 4}}"#
        XCTAssertEqual(
            ExportMetadata.detectorBackboneTraining(file),
            "fine-tuned from block 11 on the detector's training pictures (epoch 4)")
    }

    /// Workbench's side of an export comparison: the backbone's maps at the detector's side, the head, and the
    /// reference decoder with every peak kept, per image.
    static func workbenchPeaks(
        file: DetectorModelFile, network: EfficientNetLite0,
        images: [ExportFixtures.TestImage]
    ) -> [[CenterNetDetection]] {
        let detector = TrainedDetector(modelFile: file)
        let input = images.flatMap { image in image.pixels.map { (Float($0) - 127) / 128 } }
        let pyramid = network.featurePyramid(input, batch: images.count, side: file.inputSide)
        let outputs = detector.outputs(for: images.indices.map { pyramid.packed(image: $0) })
        let labelCount = file.labels.count
        return images.indices.map { item in
            CenterNetDecoder.reference(
                DetectorHeadOutputs.split(outputs, item: item, labelCount: labelCount),
                grid: detector.grid, maximumCount: detector.grid.cellCount * labelCount)
        }
    }

    /// An export's per-cell scores `[cells][labels]` (non-peaks 0) as peaks, best first with the decoder's tie rule
    /// (lower label, then lower cell).
    static func peaks(_ scores: [[Double]]) -> [(score: Double, label: Int, cell: Int)] {
        var found: [(score: Double, label: Int, cell: Int)] = []
        for (cell, row) in scores.enumerated() {
            for (label, score) in row.enumerated() where score > 0 { found.append((score, label, cell)) }
        }
        return found.sorted { ($0.score, -$0.label, -$0.cell) > ($1.score, -$1.label, -$1.cell) }
    }
}
