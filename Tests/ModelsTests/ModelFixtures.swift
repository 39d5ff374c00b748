import Foundation
import ImageCodecs
import Models
import XCTest

/// Locations and readers for the ModelsTests fixtures and the pretrained weights.
enum ModelFixtures {
    /// The repository root: this file is `<root>/Tests/ModelsTests/ModelFixtures.swift`.
    static func repositoryRoot(filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `$WORKBENCH_WEIGHTS`, else `<root>/models/efficientnet-lite0.safetensors`. Fails (never skips) when absent.
    static func weightsPath(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path =
            ProcessInfo.processInfo.environment["WORKBENCH_WEIGHTS"]
            ?? repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors").path
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("backbone weights not found at \(path): run scripts/setup.sh first", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return path
    }

    /// A file in `Tests/ModelsTests/Fixtures` (copied into the test bundle).
    static func fixture(_ name: String) -> URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent(name)
    }

    /// The reference's exact 224×224 network input `NAME_224.png`, normalised as the reference does:
    /// `(pixel − 127) / 128`, NHWC.
    static func networkInput(_ name: String) throws -> [Float] {
        let image = try ImageLoader.load(path: fixture("\(name)_224.png").path)
        XCTAssertEqual([image.width, image.height], [224, 224], "\(name)_224.png should be the network's input size")
        return ImagePreprocessing.efficientNetLite0.networkInput(from: image)
    }

    /// A full-size fixture image (`NAME.png` or `NAME.jpg`) through Workbench's own decoding and preprocessing.
    static func preprocessedInput(_ fileName: String) throws -> [Float] {
        ImagePreprocessing.efficientNetLite0.networkInput(from: try ImageLoader.load(path: fixture(fileName).path))
    }

    /// The reference numbers for one image from `golden.json`.
    struct Golden {
        let features: [Float]
        let featuresFromJPEG: [Float]
        let top5: [Int]
    }

    static func golden(_ name: String) throws -> Golden {
        let data = try Data(contentsOf: fixture("golden.json"))
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let images = try XCTUnwrap(root["images"] as? [String: Any])
        let image = try XCTUnwrap(images[name] as? [String: Any])
        let features = try XCTUnwrap(image["features_full_from_png"] as? [Double]).map(Float.init)
        let ort = try XCTUnwrap(image["ort_from_png"] as? [String: Any])
        let top5 = try XCTUnwrap(ort["top5"] as? [Int])
        let featuresFromJPEG = try XCTUnwrap(image["features_full_from_jpeg"] as? [Double]).map(Float.init)
        return Golden(features: features, featuresFromJPEG: featuresFromJPEG, top5: top5)
    }
}
