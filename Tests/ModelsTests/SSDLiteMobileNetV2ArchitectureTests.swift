import Models
import XCTest

/// The person detector's table resolves to the shapes the frozen graph has (the converter checks every layer
/// against the graph itself; these are the facts the table's doc comment states).
final class SSDLiteMobileNetV2ArchitectureTests: XCTestCase {
    typealias Architecture = SSDLiteMobileNetV2Architecture

    func testTheFeatureMapsAndAnchorsAreSSDLites() {
        XCTAssertEqual(Architecture.blocks.count, 17)
        XCTAssertEqual(Architecture.featureMaps.map(\.side), [19, 10, 5, 3, 2, 1])
        XCTAssertEqual(Architecture.featureMaps.map(\.channels), [576, 1280, 512, 256, 256, 128])
        XCTAssertEqual(Architecture.anchorCount, 1917)
        XCTAssertEqual(Architecture.blocks[Architecture.firstFeatureBlock].scope, "FeatureExtractor/MobilenetV2/expanded_conv_13")
        XCTAssertEqual(Architecture.extraLayers.map(\.expandScope).last, "FeatureExtractor/MobilenetV2/layer_19_2_Conv2d_5_3x3_s2_128")
    }

    func testEveryConvolutionHasItsTwoTensorsAndTheAnchors() {
        // Stem, 16 expanding blocks × 3 + block 0's 2, Conv_1, 4 extra layers × 3, 6 maps × 2 predictors × 2.
        XCTAssertEqual(DetectorWeights.layers.count, 1 + 16 * 3 + 2 + 1 + 4 * 3 + 6 * 2 * 2)
        XCTAssertEqual(DetectorWeights.expectedShapes.count, 2 * DetectorWeights.layers.count + 1)
        XCTAssertEqual(DetectorWeights.expectedShapes["BoxPredictor_0/BoxEncodingPredictor.weight"], [12, 576, 1, 1])
        XCTAssertEqual(DetectorWeights.expectedShapes["BoxPredictor_5/ClassPredictor.weight"], [12, 128, 1, 1])
        XCTAssertEqual(DetectorWeights.expectedShapes["FeatureExtractor/MobilenetV2/Conv.weight"], [32, 3, 3, 3])
    }

    func testSettingsRoundTripThroughMetadataAndRefuseOtherFormats() throws {
        let settings = DetectorSettings(
            labels: ["person"], boxCoderScales: [10, 10, 5, 5], logitScale: 1, overlapThreshold: 0.6,
            scoreThreshold: 1e-8, maximumPerClass: 100, maximumTotal: 100)
        XCTAssertEqual(try DetectorSettings(metadata: settings.metadata, path: "x"), settings)
        var other = settings.metadata
        other["format"] = "workbench-detector-9"
        XCTAssertThrowsError(try DetectorSettings(metadata: other, path: "x.safetensors")) { error in
            XCTAssertEqual("\(error)", "x.safetensors: detector file format workbench-detector-9, this Workbench reads workbench-detector-1")
        }
        other = settings.metadata
        other["nms_iou_threshold"] = nil
        XCTAssertThrowsError(try DetectorSettings(metadata: other, path: "x.safetensors")) { error in
            XCTAssertEqual("\(error)", "x.safetensors: not a Workbench detector file: no nms_iou_threshold in its metadata")
        }
    }
}
