import FileFormats
import Foundation
import ImageCodecs
import Models
import ModelFiles
import XCTest
import _TestSupport

/// The backbone, a small model file on top of it, test images, and Workbench's own probabilities for them.
enum ExportFixtures {
    /// Probabilities of the exported model against Workbench's: float32 through ~60 layers in a different
    /// summation order moves features by ~1e-5 and probabilities by less; 1e-4 is the bound.
    static let probabilityTolerance: Float = 1e-4

    /// The repository root: this file is `<root>/Tests/ExportTests/ExportFixtures.swift`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$WORKBENCH_WEIGHTS`, else `<root>/models/efficientnet-lite0.safetensors`.
    static let weightsPath =
        ProcessInfo.processInfo.environment["WORKBENCH_WEIGHTS"]
        ?? repositoryRoot.appendingPathComponent("models/efficientnet-lite0.safetensors").path

    /// The parsed weights and the network, loaded once for all tests.
    private static let loaded: Result<(SafetensorsFile, EfficientNetLite0), BackboneWeightsError> = {
        do {
            let file = try SafetensorsFile.read(path: weightsPath)
            return .success((file, try EfficientNetLite0(weights: file, path: weightsPath)))
        } catch let error as SafetensorsError {
            return .failure(BackboneWeightsError(path: weightsPath, reason: error.reason + " (run scripts/setup.sh)"))
        } catch let error as BackboneWeightsError {
            return .failure(error)
        } catch {
            return .failure(BackboneWeightsError(path: weightsPath, reason: "\(error)"))
        }
    }()

    /// The backbone; a missing weights file fails the test (never skips it).
    static func network() throws -> EfficientNetLite0 { try loaded.get().1 }

    /// Labels of the test model: one with non-ASCII letters and one with JSON-special characters.
    static let labels = ["cat", "café crème", "dog \"big\" / small"]

    /// The calibration temperature of the test model: far enough from 1 that an export ignoring it fails.
    static let temperature = 1.7

    /// A model file with the real backbone tensors, a seeded random 3-class head and `temperature`.
    static func modelFile() throws -> ModelFile {
        let backbone = try loaded.get().0
        var generator = SeededGenerator(seed: 20_250_505)
        let featureCount = EfficientNetLite0.featureCount
        let head = HeadTensors(
            featureMean: generator.floats(featureCount, in: 0...1),
            featureScale: generator.floats(featureCount, in: 0.5...2),
            weights: generator.floats(labels.count * featureCount, in: -0.08...0.08),
            bias: generator.floats(labels.count, in: -0.5...0.5))
        return ModelFile(
            labels: labels, preprocessing: .efficientNetLite0, backboneName: "efficientnet-lite0",
            backboneTensors: backbone.tensors, head: head, creationDate: "2025-05-05T12:00:00Z",
            workbenchVersion: "0.0.0-test", trainingReportJSON: "{}", temperature: temperature, confidenceThreshold: 0.65)
    }

    /// A named 224 × 224 RGB test image: raw bytes, row-major, channels last.
    struct TestImage {
        let name: String
        let pixels: [UInt8]
    }

    /// The two golden images of ModelsTests plus two synthetic ones: seeded noise, and a white frame around
    /// a dark centre (bright borders catch padding done in the wrong space).
    static func images() throws -> [TestImage] {
        var images: [TestImage] = []
        for name in ["chelsea", "coffee"] {
            let path = repositoryRoot.appendingPathComponent("Tests/ModelsTests/Fixtures/\(name)_224.png").path
            images.append(TestImage(name: name, pixels: try ImageLoader.load(path: path).pixels))
        }
        var generator = SeededGenerator(seed: 7)
        images.append(TestImage(name: "noise", pixels: (0..<(224 * 224 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        var framed = [UInt8](repeating: 255, count: 224 * 224 * 3)
        for y in 64..<160 {
            for x in 48..<176 {
                for channel in 0..<3 { framed[(y * 224 + x) * 3 + channel] = UInt8(20 + 30 * channel) }
            }
        }
        images.append(TestImage(name: "framed", pixels: framed))
        for image in images {
            XCTAssertEqual(image.pixels.count, 224 * 224 * 3, "\(image.name) should hold 224×224 RGB pixels")
        }
        return images
    }

    /// Workbench's probabilities: `network.features` on `(pixel − 127) / 128`, then
    /// `softmax((W·((f − mean) / scale) + b) / temperature)` in double precision, unfolded.
    static func workbenchProbabilities(_ images: [TestImage], model: ModelFile, network: EfficientNetLite0) -> [[Float]] {
        let input = images.flatMap { $0.pixels.map { (Float($0) - 127) / 128 } }
        let features = network.features(input, batch: images.count)
        let head = model.head, featureCount = head.featureDimension
        return images.indices.map { image in
            let logits = (0..<head.classCount).map { row -> Double in
                var sum = Double(head.bias[row])
                for feature in 0..<featureCount {
                    let standardized =
                        (Double(features[image * featureCount + feature]) - Double(head.featureMean[feature]))
                        / Double(head.featureScale[feature])
                    sum += Double(head.weights[row * featureCount + feature]) * standardized
                }
                return sum / model.temperature
            }
            let largest = logits.max()!
            let exponentials = logits.map { Foundation.exp($0 - largest) }
            let total = exponentials.reduce(0, +)
            return exponentials.map { Float($0 / total) }
        }
    }

    /// A fresh folder under the system's temporary directory.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("export-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes each image as `<folder>/<name>.rgb` and returns the paths in order.
    static func writeImages(_ images: [TestImage], to folder: URL) throws -> [String] {
        try images.map { image in
            let url = folder.appendingPathComponent("\(image.name).rgb")
            try Data(image.pixels).write(to: url)
            return url.path
        }
    }

    /// Index of the largest value.
    static func argmax(_ values: [Float]) -> Int {
        values.indices.max { values[$0] < values[$1] }!
    }

    /// Compares exported probabilities with Workbench's image by image: values within tolerance and the same
    /// top-1. Returns the largest absolute difference.
    @discardableResult
    static func compare(
        _ exported: [[Float]], _ expected: [[Float]], images: [TestImage], format: String,
        file: StaticString = #filePath, line: UInt = #line
    ) -> Float {
        XCTAssertEqual(exported.count, expected.count, "\(format): one probability vector per image", file: file, line: line)
        var largest: Float = 0
        for (index, image) in images.enumerated() where index < exported.count {
            assertClose(
                exported[index], expected[index], absolute: probabilityTolerance,
                "\(format) probabilities of \(image.name)", file: file, line: line)
            XCTAssertEqual(argmax(exported[index]), argmax(expected[index]), "\(format) top-1 of \(image.name)", file: file, line: line)
            XCTAssertEqual(
                exported[index].reduce(0, +), 1, accuracy: 1e-5, "\(format) probabilities of \(image.name) sum to 1",
                file: file, line: line)
            for (a, b) in zip(exported[index], expected[index]) { largest = max(largest, abs(a - b)) }
        }
        return largest
    }
}
