import Export
import Foundation
import Inference
import ModelFiles
import Models

/// What `workbench export` is asked to do.
public struct ExportRequest: Sendable {
    /// The model file: a classifier or a detector (told apart by its header).
    public var model: String
    /// The format to write.
    public var format: ExportWorkflow.Format
    /// The file to write; nil is `ExportWorkflow.defaultOutputPath(model:format:)`.
    public var output: String?
    /// Test-time augmentation: true builds a classifier's views into the ONNX graph, false never does, nil does
    /// what the model's record says.
    public var testTimeAugmentation: Bool?

    /// Exports `model` as `format` beside it.
    public init(model: String, format: ExportWorkflow.Format) {
        self.model = model
        self.format = format
    }
}

/// What an export reports as it goes.
public enum ExportEvent: Sendable {
    /// Something the person should know about the file written (one line): Core ML cannot carry the views.
    case warning(String)
}

/// What an export wrote.
public struct ExportResult: Sendable, Equatable {
    /// The file written.
    public var output: String
    /// Its format.
    public var format: ExportWorkflow.Format
}

/// `workbench export`: a model file to a format other runtimes load.
public enum ExportWorkflow {
    /// Writes `request.model` as its format (the request's output, or beside the model), atomically, reporting
    /// warnings to `events`. A classifier goes through `export(_:format:to:testTimeAugmentation:)`, a detector
    /// through `export(modelAt:format:to:testTimeAugmentation:)`.
    public static func run(_ request: ExportRequest, events: (ExportEvent) -> Void = { _ in }) throws(WorkbenchError) -> ExportResult {
        let output = request.output ?? defaultOutputPath(model: request.model, format: request.format)
        for warning in try export(
            modelAt: request.model, format: request.format, to: output,
            testTimeAugmentation: request.testTimeAugmentation)
        {
            events(.warning(warning))
        }
        return ExportResult(output: output, format: request.format)
    }

    /// The formats Workbench writes.
    public enum Format: String, Sendable, CaseIterable {
        /// ONNX (opset 13): float RGB pixels 0–255 `[N, 3, 224, 224]` in, `probabilities` out; for a detector
        /// `[N, 3, S, S]` in (S its input side), `boxes` and `scores` per cell out.
        case onnx
        /// Core ML `.mlmodel` neural-network classifier (iOS 13+): `image` in, `classLabel` and `classLabelProbs` out;
        /// for a detector a pipeline (network, then non-maximum suppression) with `confidence` and `coordinates` out.
        case coreml

        /// The file ending for this format.
        public var fileExtension: String { self == .onnx ? "onnx" : "mlmodel" }
    }

    /// `model`'s path with the format's ending instead of its own.
    public static func defaultOutputPath(model: String, format: Format) -> String {
        URL(fileURLWithPath: model).deletingPathExtension().appendingPathExtension(format.fileExtension).relativePath
    }

    /// Writes the model file at `modelPath`, a classifier or a detector (told apart by its header), as `format` to
    /// `output`, atomically, and returns the warnings to show (one line each). `output` must not be the model file.
    ///
    /// A classifier goes through `export(_:format:to:testTimeAugmentation:)`. A detector is exported as
    /// `ONNXExporter.export(detector:to:)` and `CoreMLExporter.export(detector:to:)` describe (the Core ML file is the
    /// pipeline Vision reads); neither carries `detect --tta`'s mirror averaging, so `--tta` is refused for one.
    @discardableResult
    public static func export(
        modelAt modelPath: String, format: Format, to output: String, testTimeAugmentation: Bool? = nil
    ) throws(WorkbenchError) -> [String] {
        guard DetectorModelFile.isDetector(path: modelPath) else {
            return try export(
                try Classifier.load(path: modelPath), format: format, to: output,
                testTimeAugmentation: testTimeAugmentation)
        }
        if testTimeAugmentation == true {
            throw WorkbenchError(
                path: modelPath, reason: "is a detector: its exports do not carry mirror averaging (detection and evaluation with it do)",
                hint: .exportCarriesNoMirrorAveraging)
        }
        let detector: DetectorModelFile = try WorkbenchError.passingOn {
            try DetectorModelFile.read(path: modelPath, expectedBackboneShapes: BackboneWeights.expectedShapes)
        }
        try WritableOutput.checkConflicts(inputs: [modelPath], outputs: [output])
        try WorkbenchError.passingOn {
            switch format {
            case .onnx: try ONNXExporter.export(detector: detector, to: output)
            case .coreml: try CoreMLExporter.export(detector: detector, to: output)
            }
        }
        return []
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
        try WorkbenchError.passingOn {
            switch format {
            case .onnx: try ONNXExporter.export(model: classifier.modelFile, network: network, views: views, to: output)
            case .coreml:
                var model = classifier.modelFile
                model.testTimeAugmentation.byDefault = views != nil
                try CoreMLExporter.export(model: model, network: network, to: output)
                if let views {
                    warnings.append(
                        "\(output): test-time augmentation is not carried by Core ML: the file answers on the "
                            + "image alone, not the mean of \(views.count) views (its metadata says so)")
                }
            }
        }
        return warnings
    }
}
