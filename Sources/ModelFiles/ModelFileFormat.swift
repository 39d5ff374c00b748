import FileFormats
import Foundation
import ImageCodecs

/// Names used inside the safetensors container, in one place so the writer and the reader can't drift apart.
enum ModelFileFormat {
    static let formatValue = "workbench-model"

    enum MetadataKey {
        static let format = "format"
        static let formatVersion = "format_version"
        static let labels = "labels"
        static let preprocessing = "preprocessing"
        static let backbone = "backbone"
        static let created = "created"
        static let workbenchVersion = "workbench_version"
        static let trainingReport = "training_report"
        /// Since version 2: the calibration temperature, a decimal number.
        static let temperature = "temperature"
        /// Since version 2, optional: the confidence threshold, a decimal number in 0...1.
        static let confidenceThreshold = "confidence_threshold"
        /// Since version 3, optional: the `FineTuningRecord` as JSON with sorted keys.
        static let fineTuning = "fine_tuning"
        /// Since version 4, required: the SHA-256 of the data section (every byte after the header), lowercase hex.
        static let tensorDataSHA256 = "tensor_data_sha256"
        /// Since version 5, required: the `TestTimeAugmentationRecord` as JSON with sorted keys.
        static let testTimeAugmentation = "test_time_augmentation"
        /// Since version 6, required: what the file holds, `classifier` or `detector` (`DetectorModelFile`).
        static let kind = "kind"
        /// Detector files: the side of the square network input, a decimal integer.
        static let inputSide = "input_side"
        /// Detector files: the score threshold chosen on held-out pictures, a decimal number in 0...1.
        static let scoreThreshold = "score_threshold"
        /// Detector files: the backbone tensors' identifier (`Inference.Backbone.identifier`, SHA-256 hex), which
        /// keys the cached maps.
        static let backboneSHA256 = "backbone_sha256"
        /// Keys every file must have besides `format` and `format_version`, in the order they are checked.
        static let required = [labels, preprocessing, backbone, created, workbenchVersion, trainingReport]
    }

    static let classifierKind = "classifier"
    static let detectorKind = "detector"

    static let backbonePrefix = "backbone."
    static let detectorPrefix = "detector."
    static let headPrefix = "head."

    enum HeadName {
        static let featureMean = "head.feature_mean"
        static let featureScale = "head.feature_scale"
        static let weight = "head.weight"
        static let bias = "head.bias"
        static let all = [featureMean, featureScale, weight, bias]
    }

    /// The header every kind of model file carries: format, version, kind and the `required` keys. Each kind adds
    /// its own keys to it.
    static func commonMetadata(
        kind: String, labels: [String], preprocessing: ImagePreprocessing, backboneName: String,
        creationDate: String, workbenchVersion: String, trainingReportJSON: String
    ) -> [String: String] {
        [
            MetadataKey.format: formatValue,
            MetadataKey.formatVersion: String(ModelFile.formatVersion),
            MetadataKey.kind: kind,
            // Encoding [String] cannot fail; contentProblem() has vetted the labels.
            MetadataKey.labels: canonicalJSON(labels) ?? "[]",
            MetadataKey.preprocessing: preprocessing.canonicalJSON,
            MetadataKey.backbone: backboneName,
            MetadataKey.created: creationDate,
            MetadataKey.workbenchVersion: workbenchVersion,
            MetadataKey.trainingReport: trainingReportJSON,
        ]
    }

    /// The container of a model file: its tensors and metadata, sealed with the checksum of the data section that
    /// `read` verifies.
    static func sealedContainer(tensors: [String: SafetensorsFile.Tensor], metadata: [String: String]) -> SafetensorsFile {
        var container = SafetensorsFile(tensors: tensors, metadata: metadata)
        container.metadata[MetadataKey.tensorDataSHA256] = ModelFile.tensorDataChecksum(container)
        return container
    }

    /// Writes a model file atomically (temporary file in the same folder, then rename: a failed write leaves any
    /// existing file untouched), unless `problem` (the value's `contentProblem()`, the rules `read` applies) says it
    /// would not load.
    static func write(_ container: () -> SafetensorsFile, problem: String?, to path: String) throws(ModelFileError) {
        if let problem { throw ModelFileError(path: path, reason: "cannot write: \(problem)") }
        do {
            try AtomicFile.write(container().serialized(), to: path)
        } catch {
            throw ModelFileError(path: path, reason: error.reason)
        }
    }

    /// JSON text with sorted keys, so that equal values always give equal bytes.
    static func canonicalJSON<Value: Encodable>(_ value: Value) -> String? {
        try? JSONWriter.text(value, layout: .sorted)
    }

    /// Whether `text` parses as JSON (any top-level value).
    static func isValidJSON(_ text: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
    }

    /// "[2, 1280]" — how shapes appear in messages.
    static func describe(_ shape: [Int]) -> String {
        "[" + shape.map(String.init).joined(separator: ", ") + "]"
    }

    /// A list of names for a message, shortened when long.
    static func list(_ names: [String], limit: Int = 8) -> String {
        let quoted = names.prefix(limit).map { "'\($0)'" }.joined(separator: ", ")
        return names.count > limit ? quoted + " and \(names.count - limit) more" : quoted
    }
}
