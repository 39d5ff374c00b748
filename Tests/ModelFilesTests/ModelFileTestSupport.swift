import Foundation
import ModelFiles
import XCTest
import _TestSupport

/// A small but complete model: two backbone tensors, three labels, feature dimension 4.
func sampleModel(labels: [String] = ["cat", "dog", "bird"], dimension: Int = 4) -> ModelFile {
    var generator = SeededGenerator(seed: 7)
    let classes = labels.count
    return ModelFile(
        labels: labels,
        preprocessing: .efficientNetLite0,
        backboneName: "efficientnet-lite0",
        backboneTensors: [
            "stem.conv.weight": .init(shape: [2, 3, 1, 1], values: generator.floats(6)),
            "stem.bn.bias": .init(shape: [2], values: generator.floats(2)),
        ],
        head: HeadTensors(
            featureMean: generator.floats(dimension), featureScale: generator.floats(dimension).map { abs($0) + 0.5 },
            weights: generator.floats(classes * dimension), bias: generator.floats(classes)),
        creationDate: "2025-01-02T03:04:05Z",
        workbenchVersion: "0.1.0",
        trainingReportJSON: #"{"accuracy":0.5,"epochs":3}"#,
        temperature: 1.25, confidenceThreshold: 0.7)
}

/// The shapes `sampleModel` uses for its backbone.
let sampleBackboneShapes: [String: [Int]] = ["stem.conv.weight": [2, 3, 1, 1], "stem.bn.bias": [2]]

/// A fresh temporary folder, removed at the end of the test.
func makeTemporaryFolder(_ testCase: XCTestCase) throws -> String {
    let folder = NSTemporaryDirectory() + "modelfiles-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
    return folder
}
