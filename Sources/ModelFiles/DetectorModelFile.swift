import FileFormats
import Foundation
import ImageCodecs

/// A trained Workbench detector as one `.wbmodel` file (model format version 6, kind `detector`): the frozen
/// backbone's weights, the CenterNet head's tensors, the labels in heat-map order, the network's input side, the
/// score threshold chosen on held-out pictures (`detect`'s default), the backbone's identifier and the training
/// report.
///
/// The container is the classifier's (`ModelFile`): safetensors with `backbone.<name>` tensors and string
/// metadata, the data sealed by `tensor_data_sha256`. The head's tensors are `detector.<name>` under
/// `headTensorNames`; this module checks their shapes against each other and the labels, and knows nothing of
/// the layers (DetectorTraining builds them). `read` is strict, `write` atomic and deterministic.
public struct DetectorModelFile: Sendable, Equatable {
    /// Labels in heat-map channel order.
    public var labels: [String]
    /// How pictures become the backbone's input (mean and std; the detector resizes the whole view to `inputSide`).
    public var preprocessing: ImagePreprocessing
    /// The backbone architecture, e.g. "efficientnet-lite0".
    public var backboneName: String
    /// The backbone's weights under their original names.
    public var backboneTensors: [String: SafetensorsFile.Tensor]
    /// The backbone tensors' identifier when trained (SHA-256 hex), checked again on load by the caller that
    /// computes it.
    public var backboneIdentifier: String
    /// The head's tensors by name (without the `detector.` prefix), `headTensorNames` exactly.
    public var headTensors: [String: SafetensorsFile.Tensor]
    /// Side of the square network input (`DetectorInputSide`: a multiple of 32).
    public var inputSide: Int
    /// The score threshold of best held-out F1, in 0...1.
    public var scoreThreshold: Double
    /// When the model was trained, ISO 8601; set by the caller so equal content gives equal bytes.
    public var creationDate: String
    /// The Workbench version that wrote the file.
    public var workbenchVersion: String
    /// The training report as JSON text.
    public var trainingReportJSON: String

    /// The head's tensor names: the two projections, the 3×3 mixing convolution, the output layer and their biases.
    public static let headTensorNames = [
        "coarseProjection.weights", "fineProjection.weights", "mergeBias.bias", "mixing.weights", "mixingBias.bias",
        "output.weights", "outputBias.bias",
    ]

    /// A detector file value; nothing is checked until `write`.
    public init(
        labels: [String], preprocessing: ImagePreprocessing, backboneName: String,
        backboneTensors: [String: SafetensorsFile.Tensor], backboneIdentifier: String,
        headTensors: [String: SafetensorsFile.Tensor], inputSide: Int, scoreThreshold: Double, creationDate: String,
        workbenchVersion: String, trainingReportJSON: String
    ) {
        self.labels = labels
        self.preprocessing = preprocessing
        self.backboneName = backboneName
        self.backboneTensors = backboneTensors
        self.backboneIdentifier = backboneIdentifier
        self.headTensors = headTensors
        self.inputSide = inputSide
        self.scoreThreshold = scoreThreshold
        self.creationDate = creationDate
        self.workbenchVersion = workbenchVersion
        self.trainingReportJSON = trainingReportJSON
    }

    // MARK: - Writing

    /// Writes the file atomically after checking it with the rules `read` applies, so a written file loads.
    public func write(path: String) throws(ModelFileError) {
        try ModelFileFormat.write(serializedContainer, problem: contentProblem(), to: path)
    }

    func serializedContainer() -> SafetensorsFile {
        typealias Key = ModelFileFormat.MetadataKey
        var tensors: [String: SafetensorsFile.Tensor] = [:]
        for (name, tensor) in backboneTensors { tensors[ModelFileFormat.backbonePrefix + name] = tensor }
        for (name, tensor) in headTensors { tensors[ModelFileFormat.detectorPrefix + name] = tensor }
        var metadata = ModelFileFormat.commonMetadata(
            kind: ModelFileFormat.detectorKind, labels: labels, preprocessing: preprocessing, backboneName: backboneName,
            creationDate: creationDate, workbenchVersion: workbenchVersion, trainingReportJSON: trainingReportJSON)
        metadata[Key.backboneSHA256] = backboneIdentifier
        metadata[Key.inputSide] = String(inputSide)
        // The shortest text that reads back to the same Double.
        metadata[Key.scoreThreshold] = String(describing: scoreThreshold)
        return ModelFileFormat.sealedContainer(tensors: tensors, metadata: metadata)
    }

    /// The first rule this value breaks, or nil.
    func contentProblem() -> String? {
        if let problem = ModelFile.labelsProblem(labels) { return problem }
        if let problem = Self.headProblem(headTensors, labelCount: labels.count) { return problem }
        for (prefix, tensors) in [(ModelFileFormat.detectorPrefix, headTensors), (ModelFileFormat.backbonePrefix, backboneTensors)] {
            for name in tensors.keys.sorted() {
                if let index = tensors[name]!.values.firstIndex(where: { !$0.isFinite }) {
                    return "tensor '\(prefix)\(name)' holds \(tensors[name]!.values[index]) at index \(index): weights must be finite numbers"
                }
            }
        }
        if backboneTensors.isEmpty { return "no backbone tensors" }
        if !DetectorInputSide.isValid(inputSide) { return "the input side \(inputSide) is not \(DetectorInputSide.requirement)" }
        if !(0...1).contains(scoreThreshold) { return "the score threshold \(scoreThreshold) is not between 0 and 1" }
        if !ModelFileFormat.isValidJSON(trainingReportJSON) { return "the training report is not valid JSON" }
        if let field = preprocessing.unsupportedField() { return "preprocessing \(field)" }
        let hex = Set("0123456789abcdef")
        if backboneIdentifier.count != 64 || !backboneIdentifier.allSatisfy(hex.contains) {
            return "the backbone identifier is not a SHA-256 in lowercase hex"
        }
        for (field, value) in [("backbone name", backboneName), ("creation date", creationDate), ("Workbench version", workbenchVersion)]
        where value.isEmpty {
            return "the \(field) is empty"
        }
        return nil
    }

    /// The head's names and shapes: width C from the mixing convolution `[3, 3, C, C]`, the projections
    /// `[112 or any, C]` and `[320 or any, C]`, biases `[C]`, output `[C, labels + 4]` and its bias.
    static func headProblem(_ tensors: [String: SafetensorsFile.Tensor], labelCount: Int) -> String? {
        let missing = headTensorNames.filter { tensors[$0] == nil }
        if !missing.isEmpty { return "missing head tensors: \(ModelFileFormat.list(missing.map { ModelFileFormat.detectorPrefix + $0 }))" }
        let unused = tensors.keys.filter { !headTensorNames.contains($0) }.sorted()
        if !unused.isEmpty { return "unexpected head tensors: \(ModelFileFormat.list(unused.map { ModelFileFormat.detectorPrefix + $0 }))" }
        let mixing = tensors["mixing.weights"]!.shape
        guard mixing.count == 4, mixing[0] == 3, mixing[1] == 3, mixing[2] > 0, mixing[2] == mixing[3] else {
            return "tensor 'detector.mixing.weights' has shape \(ModelFileFormat.describe(mixing)), expected [3, 3, C, C]"
        }
        let width = mixing[3], outputs = labelCount + 4
        let expected: [(String, (([Int]) -> Bool), String)] = [
            ("fineProjection.weights", { $0.count == 2 && $0[0] > 0 && $0[1] == width }, "[channels, \(width)]"),
            ("coarseProjection.weights", { $0.count == 2 && $0[0] > 0 && $0[1] == width }, "[channels, \(width)]"),
            ("mergeBias.bias", { $0 == [width] }, "[\(width)]"),
            ("mixingBias.bias", { $0 == [width] }, "[\(width)]"),
            ("output.weights", { $0 == [width, outputs] }, "[\(width), \(outputs)]"),
            ("outputBias.bias", { $0 == [outputs] }, "[\(outputs)]"),
        ]
        for (name, fits, shape) in expected where !fits(tensors[name]!.shape) {
            return
                "tensor 'detector.\(name)' has shape \(ModelFileFormat.describe(tensors[name]!.shape)) but \(labelCount) labels and width \(width) need \(shape)"
        }
        return nil
    }

    // MARK: - Reading

    /// Loads a detector file strictly. A classifier's file is refused in one line naming the command that takes it.
    ///
    /// - Parameter expectedBackboneShapes: when given, the backbone tensors must match it exactly.
    public static func read(path: String, expectedBackboneShapes: [String: [Int]]? = nil) throws(ModelFileError) -> DetectorModelFile {
        func fail(_ reason: String) -> ModelFileError { ModelFileError(path: path, reason: reason) }
        typealias Key = ModelFileFormat.MetadataKey
        let bytes = try ModelFile.readBytes(path: path)
        let header = try ModelFile.parseHeader(bytes, path: path)
        let metadata = try ModelFile.metadataStrings(header, path: path)
        guard let format = metadata[Key.format], format == ModelFileFormat.formatValue else {
            throw fail("not a Workbench model (no '\(Key.format)' metadata '\(ModelFileFormat.formatValue)')")
        }
        guard let versionText = metadata[Key.formatVersion], let version = Int(versionText), version >= 1 else {
            throw fail("corrupted header: format_version is missing or not a positive integer")
        }
        guard version <= ModelFile.formatVersion else {
            throw fail(
                "written by a newer Workbench (model format version \(version); this build reads up to version \(ModelFile.formatVersion)): update Workbench"
            )
        }
        // Detectors start at version 6; every earlier file, and a version 6 file of kind classifier, is a classifier.
        guard version >= 6, metadata[Key.kind] != ModelFileFormat.classifierKind else {
            throw fail("is a classifier model, not a detector: use it with workbench classify (or evaluate, label)")
        }
        guard metadata[Key.kind] == ModelFileFormat.detectorKind else {
            throw fail("kind '\(metadata[Key.kind] ?? "")' is not a model this build reads (classifier or detector): update Workbench")
        }
        for key in Key.required + [Key.inputSide, Key.scoreThreshold, Key.backboneSHA256, Key.tensorDataSHA256] where metadata[key] == nil {
            throw fail("corrupted header: no '\(key)' metadata")
        }
        try ModelFile.checkDataLength(header, dataLength: bytes.count - 8 - ModelFile.headerLength(bytes), path: path)
        guard metadata[Key.tensorDataSHA256] == ModelFile.storedTensorDataChecksum(bytes, dataStart: 8 + ModelFile.headerLength(bytes)) else {
            throw fail("tensor data checksum does not match: the file is damaged")
        }
        let container: SafetensorsFile
        do {
            container = try SafetensorsFile.parse(bytes, path: path)
        } catch {
            throw fail("corrupted: \(error.reason)")
        }
        guard ModelFile.tensorsMatchChecksum(container, stored: metadata[Key.tensorDataSHA256] ?? "") else {
            throw fail(ModelFile.misplacedTensorsReason)
        }
        var backbone: [String: SafetensorsFile.Tensor] = [:], head: [String: SafetensorsFile.Tensor] = [:]
        var unexpected: [String] = []
        for (name, tensor) in container.tensors {
            if name.hasPrefix(ModelFileFormat.backbonePrefix) {
                backbone[String(name.dropFirst(ModelFileFormat.backbonePrefix.count))] = tensor
            } else if name.hasPrefix(ModelFileFormat.detectorPrefix) {
                head[String(name.dropFirst(ModelFileFormat.detectorPrefix.count))] = tensor
            } else {
                unexpected.append(name)
            }
        }
        if !unexpected.isEmpty {
            throw fail("unexpected tensors (neither 'backbone.*' nor 'detector.*'): \(ModelFileFormat.list(unexpected.sorted()))")
        }
        if let expectedBackboneShapes { try ModelFile.checkBackbone(backbone, expected: expectedBackboneShapes, path: path) }
        guard let inputSide = Int(metadata[Key.inputSide]!) else {
            throw fail("input_side metadata '\(metadata[Key.inputSide]!)' is not an integer")
        }
        guard let threshold = Double(metadata[Key.scoreThreshold]!) else {
            throw fail("score_threshold metadata '\(metadata[Key.scoreThreshold]!)' is not a number")
        }
        let model = DetectorModelFile(
            labels: try ModelFile.decodeLabels(metadata[Key.labels]!, path: path),
            preprocessing: try ModelFile.decodePreprocessing(metadata[Key.preprocessing]!, formatVersion: version, path: path),
            backboneName: metadata[Key.backbone]!, backboneTensors: backbone, backboneIdentifier: metadata[Key.backboneSHA256]!,
            headTensors: head, inputSide: inputSide, scoreThreshold: threshold, creationDate: metadata[Key.created]!,
            workbenchVersion: metadata[Key.workbenchVersion]!, trainingReportJSON: metadata[Key.trainingReport]!)
        if let problem = model.contentProblem() { throw fail(problem) }
        return model
    }

    /// Whether the file at `path` declares itself a detector (kind `detector`), from its header alone; false for
    /// anything unreadable (the real reader then says why).
    public static func isDetector(path: String) -> Bool {
        guard let bytes = try? ModelFile.readBytes(path: path), let header = try? ModelFile.parseHeader(bytes, path: path),
            let metadata = try? ModelFile.metadataStrings(header, path: path)
        else { return false }
        return metadata[ModelFileFormat.MetadataKey.kind] == ModelFileFormat.detectorKind
    }
}
