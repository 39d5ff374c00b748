import FileFormats
import Inference
import Models
import ModelFiles
import TrainableLayers

extension TrainedDetector {
    /// The model file of this detector over `backbone` (its tensors, preprocessing and identifier are stored).
    public func modelFile(
        backbone: Backbone, trainingReportJSON: String, creationDate: String,
        workbenchVersion: String
    ) -> DetectorModelFile {
        var tensors: [String: SafetensorsFile.Tensor] = [:]
        for (name, value) in head.namedParameters { tensors[name] = SafetensorsFile.Tensor(shape: value.shape, values: value.scalars) }
        return DetectorModelFile(
            labels: labels, preprocessing: backbone.preprocessing, backboneName: Backbone.name,
            backboneTensors: backbone.weights.tensors, backboneIdentifier: backbone.identifier,
            headTensors: tensors, inputSide: inputSide, scoreThreshold: threshold,
            creationDate: creationDate, workbenchVersion: workbenchVersion,
            trainingReportJSON: trainingReportJSON)
    }

    /// The detector stored in `file` (`DetectorModelFile.read` has checked the head's shapes against each other).
    public init(modelFile file: DetectorModelFile) {
        func tensor(_ name: String) -> Tensor<Float> {
            let stored = file.headTensors[name]!
            return Tensor(shape: stored.shape, storage: stored.values)
        }
        func bias(_ name: String) -> ChannelScaleBiasLayer<Float> { ChannelScaleBiasLayer(bias: tensor(name)) }
        let head = DetectorHeadNetwork<Float>(
            fineProjection: PointwiseConvolutionLayer(weights: tensor("fineProjection.weights")),
            coarseProjection: PointwiseConvolutionLayer(weights: tensor("coarseProjection.weights")),
            mergeBias: bias("mergeBias.bias"), mixing: ConvolutionLayer(weights: tensor("mixing.weights"), stride: 1),
            mixingBias: bias("mixingBias.bias"), output: PointwiseConvolutionLayer(weights: tensor("output.weights")),
            outputBias: bias("outputBias.bias"))
        self.init(head: head, labels: file.labels, inputSide: file.inputSide, threshold: file.scoreThreshold)
    }
}

/// A detector model file at work: the backbone's maps and the head, loaded and checked.
public struct LoadedDetector: Sendable {
    /// The head with its labels, input side and stored threshold.
    public let detector: TrainedDetector
    /// Maps of views at the detector's input side (the model's own backbone).
    public let extractor: DetectionFeatureExtractor

    /// Reads `path` strictly (backbone shapes included) and checks the backbone against its stored identifier.
    public static func load(path: String, settings: FeatureSettings) throws(WorkbenchError) -> LoadedDetector {
        let file: DetectorModelFile = try WorkbenchError.passingOn {
            try DetectorModelFile.read(path: path, expectedBackboneShapes: BackboneWeights.expectedShapes)
        }
        let backbone = Backbone(weights: SafetensorsFile(tensors: file.backboneTensors), source: path, preprocessing: file.preprocessing)
        guard backbone.identifier == file.backboneIdentifier else {
            throw WorkbenchError(path: path, reason: "the backbone's tensors do not match the stored backbone_sha256: the file was altered")
        }
        let detector = TrainedDetector(modelFile: file)
        guard detector.head.fineProjection.inputChannels == EfficientNetLite0.stride16Channels,
            detector.head.coarseProjection.inputChannels == EfficientNetLite0.stride32Channels
        else {
            throw WorkbenchError(path: path, reason: "the head's projections do not take EfficientNet-Lite0's 112 and 320 channels")
        }
        return LoadedDetector(
            detector: detector,
            extractor: try DetectionFeatureExtractor(backbone: backbone, inputSide: file.inputSide, settings: settings))
    }
}
