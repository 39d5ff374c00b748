import Foundation
import XCTest

/// Locations and readers for the ModelsTests fixtures and the pretrained weights.
enum ModelFixtures {
    /// The repository root: this file is `<root>/Tests/ModelsTests/ModelFixtures.swift`.
    static func repositoryRoot(filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `$WORKBENCH_WEIGHTS`, else `<root>/models/efficientnet-lite0.safetensors`. Fails (never skips) when absent.
    static func weightsPath(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let path = ProcessInfo.processInfo.environment["WORKBENCH_WEIGHTS"]
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

    /// A 224×224 network input from `NAME_224.rgb` (raw RGB bytes decoded by Pillow in
    /// `scripts/make-model-fixtures.py`), normalised as the reference does: `(pixel − 127) / 128`, NHWC.
    static func networkInput(_ name: String) throws -> [Float] {
        let bytes = try Data(contentsOf: fixture("\(name)_224.rgb"))
        XCTAssertEqual(bytes.count, 224 * 224 * 3, "\(name)_224.rgb should hold 224×224 RGB pixels")
        return bytes.map { (Float($0) - 127) / 128 }
    }

    /// The reference numbers for one image from `golden.json`.
    struct Golden {
        let features: [Float]
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
        return Golden(features: features, top5: top5)
    }
}
