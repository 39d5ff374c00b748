import Augmentation
import FileFormats
import Foundation
import ImageCodecs
import LogisticHead
import ModelFiles
import Models

/// A trained classifier: the model file's labels and head over its own backbone.
public struct Classifier: Sendable {
    /// The model file as loaded.
    public let modelFile: ModelFile
    /// Where it was loaded from.
    public let path: String
    /// The backbone the model file carries.
    public let backbone: Backbone
    /// Standardisation of the features, then the linear layer.
    public let standardizer: Standardizer
    public let head: LogisticRegressionModel

    /// The labels, in output order.
    public var labels: [String] { modelFile.labels }

    /// Logits are divided by this before the softmax, so confidences match held-out accuracy (1 for models
    /// trained before calibration existed).
    public var temperature: Double { modelFile.temperature }

    /// The lowest confidence at which the model should answer, chosen at training for a target precision; nil
    /// when none was chosen.
    public var confidenceThreshold: Double? { modelFile.confidenceThreshold }

    /// Loads and checks a model file: format, labels, head shapes, every backbone tensor's name and shape, and a
    /// preprocessing this build performs at the backbone's input size (refused naming the field otherwise).
    public static func load(path: String) throws(WorkbenchError) -> Classifier {
        let file: ModelFile
        do {
            file = try ModelFile.read(path: path, expectedBackboneShapes: BackboneWeights.expectedShapes)
        } catch {
            throw WorkbenchError(error)
        }
        if let field = file.preprocessing.unsupportedField(backboneInputSide: EfficientNetLite0.inputSide) {
            throw WorkbenchError(path: path, reason: "preprocessing \(field)")
        }
        return Classifier(modelFile: file, path: path)
    }

    /// A classifier over an in-memory model file.
    public init(modelFile: ModelFile, path: String) {
        self.modelFile = modelFile
        self.path = path
        backbone = Backbone(modelFile: modelFile, source: path)
        standardizer = Standardizer(mean: modelFile.head.featureMean, scale: modelFile.head.featureScale)
        head = LogisticRegressionModel(
            classCount: modelFile.head.classCount, dimension: modelFile.head.featureDimension,
            weights: modelFile.head.weights, bias: modelFile.head.bias)
    }

    /// Calibrated class probabilities `[count, labels.count]` for features `[count, 1280]`:
    /// `softmax(logits / temperature)`.
    public func probabilities(features: [Float], count: Int) -> [Float] {
        Softmax.probabilities(
            logits: head.logits(standardizer.apply(features, count: count), count: count),
            count: count, classCount: labels.count, temperature: temperature)
    }

    /// Calibrated class probabilities `[count, labels.count]` for the features of every test-time view of `count`
    /// images (`[count, views.count, 1280]`, each image's views together): the mean over the views of
    /// `softmax(logits / temperature)`.
    public func probabilities(features: [Float], count: Int, views: TestTimeViews) -> [Float] {
        views.average(probabilities(features: features, count: count * views.count), width: labels.count)
    }

    /// Whether this model's test-time views and which: `requested` is the user's `--tta` (true) or `--no-tta`
    /// (false), nil leaves it to the model's default (`train --tta`). The views mirror only when the model allows
    /// it (not one trained with `--no-flip`); nil means plain answers.
    public func testTimeViews(requested: Bool?) -> TestTimeViews? {
        let record = modelFile.testTimeAugmentation
        return (requested ?? record.byDefault) ? TestTimeViews(mirrors: record.mirrors) : nil
    }

    /// How an image becomes this model's input: the model file's preprocessing.
    public var preprocessing: ImagePreprocessing { modelFile.preprocessing }

    /// What fine-tuning trained in the backbone; nil when it is the pretrained one.
    public var fineTuning: FineTuningRecord? { modelFile.fineTuning }

    /// "pretrained ImageNet weights (frozen)" or which blocks fine-tuning trained, for reports and `inspect`.
    public var backboneDescription: String {
        modelFile.backboneTrainingDescription(blockCount: EfficientNetLite0Architecture.blocks.count)
    }
}
