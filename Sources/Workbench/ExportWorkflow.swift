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

    /// Writes `classifier` as `format` to `output`, atomically, and returns the warnings to show (one line each).
    /// `output` must not be the model file itself.
    ///
    /// Test-time augmentation (`testTimeAugmentation`: true for `--tta`, false for `--no-tta`, nil for the model's
    /// default) is built into an ONNX graph; a Core ML file cannot carry it (its resize layers are not the
    /// bicubic filter the views need), so asking for it there gives a warning, and the metadata says so.
    @discardableResult
    public static func export(
        _ classifier: Classifier, format: Format, to output: String, testTimeAugmentation: Bool? = nil
    ) throws(WorkbenchError) -> [String] {
        try WritableOutput.checkConflicts(inputs: [classifier.path], outputs: [output])
        let network = try classifier.backbone.makeNetwork()
        let views = classifier.testTimeViews(requested: testTimeAugmentation)
        var warnings: [String] = []
        do {
            switch format {
            case .onnx: try ONNXExporter.export(model: classifier.modelFile, network: network, views: views, to: output)
            case .coreml:
                var model = classifier.modelFile
                model.testTimeAugmentation.byDefault = views != nil
                try CoreMLExporter.export(model: model, network: network, to: output)
                if let views {
                    warnings.append("\(output): test-time augmentation is not carried by Core ML: the file answers on the "
                                    + "image alone, not the mean of \(views.count) views (its metadata says so)")
                }
            }
        } catch {
            throw WorkbenchError(error)
        }
        return warnings
    }
}
