import Foundation
import FileFormats
import Models
import TensorCore
import TrainableLayers
import XCTest
import _TestSupport

final class BackboneTensorExportTests: XCTestCase {
    func testTheInferenceNetworkFromTheExportedTensorsComputesTheTrainedNetworksFeatures() throws {
        let path = WorkbenchBinary.repositoryRoot().appendingPathComponent("models/efficientnet-lite0.safetensors").path
        let base = try SafetensorsFile.read(path: path)
        let network = try EfficientNetLite0(weights: base, path: path)
        // Every trained parameter moved away from its start, scales included, as training would.
        var trained = TrainableEfficientNetLite0(backbone: network, trainableFrom: .block(10))
        var random = SeededGenerator(seed: 21)
        var shifted = trained
        trained.update(with: zeroGradients(shifted)) { _, parameter, _ in
            parameter.withUnsafeMutableBufferPointer { values in
                for index in values.indices { values[index] *= Float.random(in: 0.8...1.2, using: &random) }
            }
        }
        shifted = trained
        let tensors = shifted.backboneTensors(over: base.tensors)
        let converted = try EfficientNetLite0(weights: SafetensorsFile(tensors: tensors), path: "converted")

        let images = random.floats(2 * 224 * 224 * 3)
        let blockInputs = network.blockInputs(images, batch: 2, block: 10)
        let expected = shifted.forward(Tensor(shape: [2, 14, 14, 112], storage: blockInputs), mode: .inference).features.scalars
        // Float rounding of the folded products (weight·scale) and of the identity batch norm's 1/√(1 − ε + ε).
        assertClose(converted.features(images, batch: 2), expected, absolute: 1e-4, relative: 1e-4)

        // Layers below the trained part are byte-identical; the trained ones are named and changed.
        let trainedNames = Set(shifted.trainedTensorNames)
        XCTAssertTrue(trainedNames.contains("_blocks.10._expand_conv.weight"))
        XCTAssertTrue(trainedNames.contains("_conv_head.weight"))
        XCTAssertTrue(trainedNames.contains("_bn1.running_var"))
        XCTAssertFalse(trainedNames.contains("_blocks.9._project_conv.weight"))
        for (name, tensor) in base.tensors where !trainedNames.contains(name) { XCTAssertEqual(tensors[name], tensor, name) }
        XCTAssertNotEqual(tensors["_blocks.15._project_conv.weight"], base.tensors["_blocks.15._project_conv.weight"])
        XCTAssertEqual(tensors["_bn1.running_mean"]?.values.allSatisfy { $0 == 0 }, true)
    }

    private func zeroGradients(_ network: TrainableEfficientNetLite0) -> TrainableEfficientNetLite0.Gradients {
        let features = network.forward(Tensor(shape: [1, 14, 14, 112]), mode: .training)
        return network.backward(Tensor(shape: [1, 1280]), cache: features.cache!)
    }
}
