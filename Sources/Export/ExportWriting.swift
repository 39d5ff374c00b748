import FileFormats
import ModelFiles
import Models
import SwiftProtobuf

/// What both exporters share around the format-specific part: building the backbone from the model file, and
/// encoding and writing the message.
enum ExportWriting {
    /// The backbone rebuilt from `model.backboneTensors`, so that the exported network is the one the head was
    /// trained on; a weight problem is reported against the output `path`.
    static func network(for model: ModelFile, path: String) throws(ExportError) -> EfficientNetLite0 {
        try network(backboneName: model.backboneName, tensors: model.backboneTensors, path: path)
    }

    /// The detector's backbone rebuilt from `model.backboneTensors`, as for a classifier.
    static func network(for model: DetectorModelFile, path: String) throws(ExportError) -> EfficientNetLite0 {
        try network(backboneName: model.backboneName, tensors: model.backboneTensors, path: path)
    }

    private static func network(
        backboneName: String, tensors: [String: SafetensorsFile.Tensor],
        path: String
    ) throws(ExportError) -> EfficientNetLite0 {
        guard backboneName == "efficientnet-lite0" else {
            throw ExportError(path: path, reason: "cannot export backbone \"\(backboneName)\", only efficientnet-lite0")
        }
        do {
            return try EfficientNetLite0(weights: SafetensorsFile(tensors: tensors), path: path)
        } catch {
            throw ExportError(path: path, reason: "the model's backbone weights: \(error.reason)")
        }
    }

    /// Encodes `message` with map entries in sorted order (equal models give equal bytes) and writes it
    /// atomically to `path`.
    static func write(_ message: some SwiftProtobuf.Message, format: String, to path: String) throws(ExportError) {
        var options = BinaryEncodingOptions()
        options.useDeterministicOrdering = true
        let bytes: [UInt8]
        do {
            bytes = try message.serializedBytes(options: options)
        } catch {
            throw ExportError(path: path, reason: "cannot encode the \(format) model: \(error)")
        }
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw ExportError(path: path, reason: error.reason)
        }
    }
}
