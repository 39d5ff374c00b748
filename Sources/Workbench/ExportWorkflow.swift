import Export
import Foundation

/// `workbench export`: a model file to a format other runtimes load.
public enum ExportWorkflow {
    /// The formats Workbench writes.
    public enum Format: String, Sendable, CaseIterable {
        /// ONNX (opset 13): float RGB pixels 0–255 `[N, 3, 224, 224]` in, `probabilities` out.
        case onnx
        /// Core ML `.mlmodel` neural-network classifier (iOS 13+): `image` in, `classLabel` and `classLabelProbs` out.
        case coreml

        /// The file ending for this format.
        public var fileExtension: String { self == .onnx ? "onnx" : "mlmodel" }
    }

    /// `model`'s path with the format's ending instead of its own.
    public static func defaultOutputPath(model: String, format: Format) -> String {
        URL(fileURLWithPath: model).deletingPathExtension().appendingPathExtension(format.fileExtension).relativePath
    }

    /// Writes `classifier` as `format` to `output`, atomically.
    /// `output` must not be the model file itself.
    public static func export(_ classifier: Classifier, format: Format, to output: String) throws(WorkbenchError) {
        try WritableOutput.checkConflicts(inputs: [classifier.path], outputs: [output])
        let network = try classifier.backbone.makeNetwork()
        do {
            switch format {
            case .onnx: try ONNXExporter.export(model: classifier.modelFile, network: network, to: output)
            case .coreml: try CoreMLExporter.export(model: classifier.modelFile, network: network, to: output)
            }
        } catch {
            throw WorkbenchError(error)
        }
    }
}
