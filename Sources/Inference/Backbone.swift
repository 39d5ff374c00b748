import Datasets
import FileFormats
import Foundation
import ImageCodecs
import ModelFiles
import Models

/// The backbone's tensors (original names, unfolded) and the preprocessing its inputs get, wherever they came
/// from: set-up's weights file (the pretrained network, `ImagePreprocessing.efficientNetLite0`) or a model file,
/// which carries its own copy of both (fine-tuned layers included). The identifier is a SHA-256 over names and
/// values, so features cached for one are valid for the other exactly when the tensors are the same.
public struct Backbone: Sendable {
    /// The tensors by their original names (`_conv_stem.weight`, ...).
    public let weights: SafetensorsFile
    /// Where they were read from, for messages.
    public let source: String
    /// How an image becomes this backbone's input: read from the model file, or the default recipe for set-up's
    /// pretrained weights. Everything that feeds the network (features, classify, evaluate, label) uses it.
    public let preprocessing: ImagePreprocessing
    /// Hex SHA-256 of the tensors (sorted names, shapes, little-endian values). Worked out on each call (about
    /// 60 ms), so labeling and classifying never pay for it; `FeatureExtractor.backboneIdentifier` keeps it.
    public var identifier: String {
        var hasher = SHA256()
        for name in weights.tensors.keys.sorted() {
            let tensor = weights.tensors[name]!
            hasher.update(Array("\(name)\u{0}\(tensor.shape)\u{0}".utf8))
            tensor.values.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The backbone name model files record.
    public static let name = "efficientnet-lite0"

    /// Reads set-up's weights file.
    public static func load(path: String) throws(WorkbenchError) -> Backbone {
        do {
            return Backbone(weights: try SafetensorsFile.read(path: path), source: path, preprocessing: .efficientNetLite0)
        } catch {
            throw WorkbenchError(path: path, reason: "cannot load the backbone: \(error.reason)")
        }
    }

    /// The backbone stored in a model file (its tensors are named `backbone.<original name>` there; the model file
    /// API hands them back without the prefix).
    public init(modelFile: ModelFile, source: String) {
        self.init(
            weights: SafetensorsFile(tensors: modelFile.backboneTensors), source: source,
            preprocessing: modelFile.preprocessing)
    }

    public init(weights: SafetensorsFile, source: String, preprocessing: ImagePreprocessing) {
        self.weights = weights
        self.source = source
        self.preprocessing = preprocessing
    }

    /// Builds the network (folds batch norm, packs weights). Strict: missing, unused or wrong-shape tensors fail.
    /// The preprocessing must be one this build performs at the network's input size.
    public func makeNetwork() throws(WorkbenchError) -> EfficientNetLite0 {
        if let field = preprocessing.unsupportedField(backboneInputSide: EfficientNetLite0.inputSide) {
            throw WorkbenchError(path: source, reason: "preprocessing \(field)")
        }
        do {
            return try EfficientNetLite0(weights: weights, path: source)
        } catch {
            throw WorkbenchError("\(error)")
        }
    }
}
