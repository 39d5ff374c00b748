import Foundation
import ImageCodecs
import Models
import TrainableLayers
import XCTest
import _TestSupport

/// The pretrained backbone and the golden images the ModelsTests use, read from the repository.
enum NetworkFixtures {
    /// `$WORKBENCH_WEIGHTS`, else `<root>/models/efficientnet-lite0.safetensors`. Fails (never skips) when absent.
    static func backbone(file: StaticString = #filePath, line: UInt = #line) throws -> EfficientNetLite0 {
        let path =
            ProcessInfo.processInfo.environment["WORKBENCH_WEIGHTS"]
            ?? WorkbenchBinary.repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors").path
        guard FileManager.default.fileExists(atPath: path) else {
            XCTFail("backbone weights not found at \(path): run scripts/setup.sh first", file: file, line: line)
            throw CocoaError(.fileNoSuchFile)
        }
        return try EfficientNetLite0(weightsPath: path)
    }

    /// `Tests/ModelsTests/Fixtures/NAME`.
    static func modelsFixture(_ name: String) -> URL {
        WorkbenchBinary.repositoryRoot().appendingPathComponent("Tests/ModelsTests/Fixtures").appendingPathComponent(name)
    }

    /// The reference's exact 224×224 inputs `NAME_224.png`, normalised, as one NHWC batch.
    static func goldenImages(_ names: [String]) throws -> Tensor<Float> {
        let values = try names.flatMap { name in
            ImagePreprocessing.efficientNetLite0.networkInput(from: try ImageLoader.load(path: modelsFixture("\(name)_224.png").path))
        }
        return Tensor(shape: [names.count, 224, 224, 3], storage: values)
    }

    /// onnxruntime's 1280 features for `name` from `golden.json`.
    static func goldenFeatures(_ name: String) throws -> [Float] {
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: modelsFixture("golden.json"))) as? [String: Any])
        let image = try XCTUnwrap((root["images"] as? [String: Any])?[name] as? [String: Any])
        return try XCTUnwrap(image["features_full_from_png"] as? [Double]).map(Float.init)
    }
}
