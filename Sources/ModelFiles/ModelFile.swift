import FileFormats
import ImageCodecs

/// A trained Workbench classifier as one portable file (`.wbmodel`): the frozen backbone's weights, the
/// logistic-regression head, the labels in output order, how images must be preprocessed, and the training report.
///
/// On disk it is a safetensors container (see `ModelFileFormat` for the names), so any safetensors reader can open
/// it; `read` is strict and names the first thing that is wrong, `write` is atomic and deterministic.
public struct ModelFile: Sendable, Equatable {
    /// The newest layout this build writes and reads. Files that declare a higher version are refused.
    /// Version 2 added the calibration temperature (required) and the confidence threshold (optional); version 1
    /// files load with temperature 1 and no threshold. Version 3 added the fine-tuning record (optional: a
    /// frozen-backbone model has none) and stores the preprocessing as a versioned `ImagePreprocessing`; versions
    /// 1 and 2 load with no record, their unversioned preprocessing description mapped to the value. Version 4
    /// added the SHA-256 of the tensor data (required), checked on load so a damaged file is refused; versions 1–3
    /// load without one. Version 5 added the test-time augmentation record (required); versions 1–4 load with
    /// none by default and mirrors unless their fine-tuning record says the model never saw a flip
    /// (`TestTimeAugmentationRecord.implied`). Version 6 added the kind (required): `classifier`, or `detector` for
    /// the detectors `train` makes from annotations (`DetectorModelFile`); each reader refuses the other kind in
    /// one line, and an older Workbench refuses both as newer than it reads.
    ///
    /// Every change to the layout or to a stored value's meaning bumps it, and every earlier version keeps loading:
    /// `Tests/ModelFilesTests/Fixtures` holds a stored file of each, and a test fails until a new version has one.
    public static let formatVersion = 6

    /// Class names in the order of the head's outputs.
    public var labels: [String]
    /// How an image becomes the backbone's input tensor; every consumer of the model reads it from here.
    public var preprocessing: ImagePreprocessing
    /// Which backbone architecture the weights belong to, e.g. "efficientnet-lite0".
    public var backboneName: String
    /// The backbone's weights under their original names (the file stores them as "backbone.<name>").
    public var backboneTensors: [String: SafetensorsFile.Tensor]
    /// The trained head: standardization and the linear layer.
    public var head: HeadTensors
    /// When the model was trained, ISO 8601. Set by the caller so that equal content gives equal bytes.
    public var creationDate: String
    /// The Workbench version that wrote the file.
    public var workbenchVersion: String
    /// The training report as JSON text; this module only checks that it is valid JSON.
    public var trainingReportJSON: String
    /// Probabilities are `softmax(logits / temperature)`: fitted on held-out predictions so that confidences
    /// match accuracy. Positive and finite; 1 leaves the logits as they are.
    public var temperature: Double
    /// The lowest calibrated confidence at which the model should answer (chosen for a target precision), in
    /// 0...1; nil when none was chosen.
    public var confidenceThreshold: Double?
    /// What fine-tuning trained in `backboneTensors`; nil for a model whose backbone is the pretrained one.
    public var fineTuning: FineTuningRecord?
    /// Whether test-time views are averaged by default and whether they may mirror.
    public var testTimeAugmentation: TestTimeAugmentationRecord

    /// Creates a model file value; nothing is checked until `write`.
    public init(
        labels: [String], preprocessing: ImagePreprocessing, backboneName: String,
        backboneTensors: [String: SafetensorsFile.Tensor], head: HeadTensors, creationDate: String,
        workbenchVersion: String, trainingReportJSON: String, temperature: Double = 1, confidenceThreshold: Double? = nil,
        fineTuning: FineTuningRecord? = nil,
        testTimeAugmentation: TestTimeAugmentationRecord = TestTimeAugmentationRecord(byDefault: false, mirrors: true)
    ) {
        self.fineTuning = fineTuning
        self.testTimeAugmentation = testTimeAugmentation
        self.temperature = temperature
        self.confidenceThreshold = confidenceThreshold
        self.labels = labels
        self.preprocessing = preprocessing
        self.backboneName = backboneName
        self.backboneTensors = backboneTensors
        self.head = head
        self.creationDate = creationDate
        self.workbenchVersion = workbenchVersion
        self.trainingReportJSON = trainingReportJSON
    }
}

/// The classifier head: `logits = weights · ((features − featureMean) / featureScale) + bias`.
///
/// Shapes: featureMean [D], featureScale [D], weights [C, D] row-major, bias [C], with C the label count and
/// D the backbone's feature dimension (1280 for EfficientNet-Lite0).
public struct HeadTensors: Sendable, Equatable {
    /// Per-feature mean subtracted before the linear layer, [D].
    public var featureMean: [Float]
    /// Per-feature divisor applied after subtracting the mean, [D].
    public var featureScale: [Float]
    /// Linear weights, [C, D] row-major.
    public var weights: [Float]
    /// Linear bias, [C].
    public var bias: [Float]

    /// Creates a head; `weights` must hold `bias.count × featureMean.count` values.
    public init(featureMean: [Float], featureScale: [Float], weights: [Float], bias: [Float]) {
        self.featureMean = featureMean
        self.featureScale = featureScale
        self.weights = weights
        self.bias = bias
    }

    /// C, the number of outputs.
    public var classCount: Int { bias.count }
    /// D, the length of the feature vector the head consumes.
    public var featureDimension: Int { featureMean.count }
}

/// Marks `FileError`s raised by ModelFiles.
public enum ModelFileErrorDomain {}

/// A model file that cannot be read or written: "path: reason", one line.
public typealias ModelFileError = FileError<ModelFileErrorDomain>

extension ErrorHint {
    /// A detector's model file was given where a classifier's is read: it is for detecting.
    public static let useAsDetector = ErrorHint("ModelFiles.useAsDetector")
}
