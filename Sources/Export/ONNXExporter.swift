import Augmentation
import Foundation
import ModelFiles
import Models

/// Writes a Workbench classifier as one ONNX graph (opset 13): raw RGB pixels in, class probabilities out.
///
/// Graph: `image [N, 3, 224, 224]` float, 0…255, RGB → `Sub(mean)` → `Mul(1/std)` → stem and the 16 blocks as
/// `Conv` (explicit, asymmetric `pads` reproducing TensorFlow SAME) + `Clip(0, 6)` + `Add` for residuals →
/// head `Conv` + `Clip` → `GlobalAveragePool` → `Flatten` → `Gemm` (the head, standardisation folded in) →
/// `Div` by the calibration temperature → `Softmax` → `probabilities [N, classes]`. The batch dimension is symbolic (`N`). Cropping and resizing stay
/// outside the model and are described in the `preprocessing` metadata; `labels` holds the class names.
public enum ONNXExporter {
    /// The operator set the graph uses (`Clip` with tensor bounds needs 11+, `Softmax` over one axis 13+).
    public static let opsetVersion: Int64 = 13
    /// ONNX IR version matching opset 13.
    public static let irVersion: Int64 = 7
    /// Name of the graph input.
    public static let inputName = "image"
    /// Name of the graph output.
    public static let outputName = "probabilities"
    /// A detector's box output: `[N, cells, 4]`.
    public static let boxesOutputName = "boxes"
    /// A detector's score output: `[N, cells, labels]`.
    public static let scoresOutputName = "scores"
    /// The most boxes `detect` keeps per picture; the selection rule in a detector's metadata uses it.
    public static let maximumDetections = 100

    /// Exports `model` with the backbone rebuilt from its own `backboneTensors` (atomically; nothing is left
    /// behind on failure). With `views`, the graph averages over the test-time views (`ONNXGraphBuilder`).
    public static func export(model: ModelFile, views: TestTimeViews? = nil, to path: String) throws(ExportError) {
        try export(model: model, network: try ExportWriting.network(for: model, path: path), views: views, to: path)
    }

    /// Exports `model`'s head on top of `network` to `path` (atomically; nothing is left behind on failure). With
    /// `views` the test-time views are built in the graph from the input pixels and the output is the mean of
    /// their probabilities, as `classify --tta` gives; the metadata `test_time_augmentation` says which views.
    public static func export(
        model: ModelFile, network: EfficientNetLite0, views: TestTimeViews? = nil, to path: String
    ) throws(ExportError) {
        let plan = try ExportPlan(model: model, network: network, path: path)
        var builder = ONNXGraphBuilder()
        builder.build(plan, views: views)

        let docString =
            "\(model.backboneName) image classifier trained with Workbench \(model.workbenchVersion); "
            + "backbone: \(ExportMetadata.backboneTraining(model))"
        let metadata: [(String, String)] =
            [
                ("labels", ExportMetadata.labelsJSON(plan.labels)),
                ("preprocessing", ExportMetadata.preprocessingJSON(model.preprocessing)),
                ("preprocessing_summary", ExportMetadata.preprocessingSummary(model.preprocessing)),
                ("backbone", model.backboneName),
                ("backbone_training", ExportMetadata.backboneTraining(model)),
                ("created", model.creationDate),
                ("workbench_version", model.workbenchVersion),
                ("temperature", String(describing: model.temperature)),
            ] + (plan.confidenceThreshold.map { [("confidence_threshold", String(describing: $0))] } ?? [])
            + (ExportMetadata.fineTuningJSON(model).map { [("fine_tuning", $0)] } ?? [])
            + [("test_time_augmentation", ExportMetadata.testTimeAugmentation(views, carried: true))]
        try write(graph: builder.graph, docString: docString, metadata: metadata, to: path)
    }

    /// Exports a trained detector with the backbone rebuilt from its own `backboneTensors` (atomically).
    public static func export(detector: DetectorModelFile, to path: String) throws(ExportError) {
        try export(detector: detector, network: try ExportWriting.network(for: detector, path: path), to: path)
    }

    /// Exports a trained detector on top of `network` to `path` (atomically; nothing is left behind on failure).
    ///
    /// Input `image [N, 3, S, S]`: the whole picture (no crop) resized to the model's input side S with the
    /// preprocessing's antialiased bicubic, RGB 0…255 (normalisation inside). Outputs, per picture and per cell of
    /// the stride-16 grid (`cells` = (S/16)², cell `row · S/16 + column`), CenterNet's decoding without its
    /// selection:
    /// - `scores [N, cells, labels]`: σ(heat-map logit) where the cell is a 3×3 peak of its label's channel (equal
    ///   to the 3×3 maximum, the window cut at the border), 0 elsewhere;
    /// - `boxes [N, cells, 4]`: `x1, y1, x2, y2` as fractions of the input square (so of the picture), centre
    ///   `(column + offset x, row + offset y) · 16 / S`, size `max(0, size) · 16 / S`, cut to 0…1.
    ///
    /// `detect --model`'s boxes are then: the (cell, label) pairs with a score above 0 and at least the threshold
    /// (metadata `score_threshold`, the model's default), best first (equal scores: lower label, then lower cell),
    /// the first 100, each box times the picture's width and height, those of zero width or height dropped. The
    /// metadata `decoding` says the same.
    public static func export(detector: DetectorModelFile, network: EfficientNetLite0, to path: String) throws(ExportError) {
        let plan = try DetectorExportPlan(model: detector, network: network, path: path)
        var builder = ONNXGraphBuilder()
        builder.buildDetector(plan)

        let docString =
            "\(detector.backboneName) CenterNet object detector (\(plan.labels.count) labels, input "
            + "\(plan.inputSide) px) trained with Workbench \(detector.workbenchVersion)"
        let metadata: [(String, String)] = [
            ("kind", "detector"),
            ("labels", ExportMetadata.labelsJSON(plan.labels)),
            ("preprocessing", ExportMetadata.detectorPreprocessingJSON(detector.preprocessing, inputSide: plan.inputSide)),
            ("preprocessing_summary", ExportMetadata.detectorPreprocessingSummary(detector.preprocessing, inputSide: plan.inputSide)),
            ("input_side", String(plan.inputSide)),
            ("score_threshold", String(describing: plan.scoreThreshold)),
            ("maximum_detections", String(maximumDetections)),
            ("decoding", ExportMetadata.detectorDecoding(plan)),
            ("backbone", detector.backboneName),
            ("backbone_training", ExportMetadata.detectorBackboneTraining(detector)),
            ("created", detector.creationDate),
            ("workbench_version", detector.workbenchVersion),
        ]
        try write(graph: builder.graph, docString: docString, metadata: metadata, to: path)
    }

    /// The model around a built graph, the same for every kind: IR and opset versions, producer, `docString`, the
    /// metadata props in the order given; written atomically.
    private static func write(
        graph: Onnx_GraphProto, docString: String, metadata: [(String, String)],
        to path: String
    ) throws(ExportError) {
        var onnxModel = Onnx_ModelProto()
        onnxModel.irVersion = irVersion
        onnxModel.producerName = ExportMetadata.producerName
        onnxModel.producerVersion = ExportMetadata.producerVersion
        onnxModel.modelVersion = 1
        onnxModel.docString = docString
        onnxModel.opsetImport = [
            Onnx_OperatorSetIdProto.with {
                $0.domain = ""; $0.version = opsetVersion
            }
        ]
        onnxModel.graph = graph
        onnxModel.metadataProps = metadata.map { entry in
            Onnx_StringStringEntryProto.with {
                $0.key = entry.0; $0.value = entry.1
            }
        }
        try ExportWriting.write(onnxModel, format: "ONNX", to: path)
    }
}
