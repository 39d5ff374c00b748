import FileFormats
import Foundation
import ImageCodecs

extension ModelFile {
    /// Loads a model file strictly: anything unexpected is refused with one reason naming what is wrong.
    ///
    /// - Parameter expectedBackboneShapes: when given, the backbone tensors (original names, without the
    ///   "backbone." prefix) must match it exactly: missing, unused and wrong-shape tensors are each named.
    public static func read(path: String, expectedBackboneShapes: [String: [Int]]? = nil) throws(ModelFileError) -> ModelFile {
        func fail(_ reason: String) -> ModelFileError { ModelFileError(path: path, reason: reason) }
        let bytes = try readBytes(path: path)
        let header = try parseHeader(bytes, path: path)
        let metadata = try metadataStrings(header, path: path)

        typealias Key = ModelFileFormat.MetadataKey
        guard let format = metadata[Key.format] else { throw fail("not a Workbench model (no 'format' metadata)") }
        guard format == ModelFileFormat.formatValue else {
            throw fail("not a Workbench model (format is '\(format)', expected '\(ModelFileFormat.formatValue)')")
        }
        guard let versionText = metadata[Key.formatVersion] else { throw fail("corrupted header: no 'format_version' metadata") }
        guard let version = Int(versionText), version >= 1 else {
            throw fail("corrupted header: format_version '\(versionText)' is not a positive integer")
        }
        guard version <= formatVersion else {
            throw fail(
                "written by a newer Workbench (model format version \(version); this build reads up to version \(formatVersion)): update Workbench")
        }
        for key in Key.required where metadata[key] == nil {
            throw fail("corrupted header: no '\(key)' metadata")
        }
        // Version 6 names the kind: a detector's file is refused here, with the hint that it is a detector's to use.
        if version >= 6 {
            guard let kind = metadata[Key.kind] else { throw fail("corrupted header: no '\(Key.kind)' metadata") }
            if kind == ModelFileFormat.detectorKind {
                throw ModelFileError(path: path, reason: "is a detector model, not a classifier", hint: .useAsDetector)
            }
            guard kind == ModelFileFormat.classifierKind else {
                throw fail("kind '\(kind)' is not a model this build reads (classifier or detector): update Workbench")
            }
        }
        try checkDataLength(header, dataLength: bytes.count - 8 - headerLength(bytes), path: path)
        // Version 4 seals the tensor data: flipped bits in a weight would otherwise load and answer, wrongly.
        if version >= 4 {
            guard let stored = metadata[Key.tensorDataSHA256] else {
                throw fail("corrupted header: no '\(Key.tensorDataSHA256)' metadata")
            }
            guard stored == storedTensorDataChecksum(bytes, dataStart: 8 + headerLength(bytes)) else {
                throw fail("tensor data checksum does not match: the file is damaged")
            }
        }

        let container: SafetensorsFile
        do {
            container = try SafetensorsFile.parse(bytes, path: path)
        } catch {
            throw fail("corrupted: \(error.reason)")
        }
        if version >= 4, let stored = metadata[Key.tensorDataSHA256], !tensorsMatchChecksum(container, stored: stored) {
            throw fail(misplacedTensorsReason)
        }

        let labels = try decodeLabels(metadata[Key.labels]!, path: path)
        let preprocessing = try decodePreprocessing(metadata[Key.preprocessing]!, formatVersion: version, path: path)

        var backbone: [String: SafetensorsFile.Tensor] = [:]
        var unexpected: [String] = []
        for (name, tensor) in container.tensors {
            if name.hasPrefix(ModelFileFormat.backbonePrefix) {
                backbone[String(name.dropFirst(ModelFileFormat.backbonePrefix.count))] = tensor
            } else if !ModelFileFormat.HeadName.all.contains(name) {
                unexpected.append(name)
            }
        }
        if !unexpected.isEmpty {
            throw fail("unexpected tensors (neither 'backbone.*' nor a head tensor): \(ModelFileFormat.list(unexpected.sorted()))")
        }
        let head = try decodeHead(container.tensors, classCount: labels.count, path: path)
        if let expectedBackboneShapes {
            try checkBackbone(backbone, expected: expectedBackboneShapes, path: path)
        }

        // Version 1 predates calibration: its probabilities were the plain softmax.
        var temperature = 1.0
        var confidenceThreshold: Double?
        if version >= 2 {
            guard let text = metadata[Key.temperature] else { throw fail("corrupted header: no '\(Key.temperature)' metadata") }
            guard let value = Double(text) else { throw fail("temperature metadata '\(text)' is not a number") }
            temperature = value
            if let text = metadata[Key.confidenceThreshold] {
                guard let value = Double(text) else { throw fail("confidence_threshold metadata '\(text)' is not a number") }
                confidenceThreshold = value
            }
        }
        // Versions 1 and 2 predate fine-tuning: their backbone is the pretrained one.
        var fineTuning: FineTuningRecord?
        if version >= 3, let text = metadata[Key.fineTuning] {
            guard let record = try? JSONDecoder().decode(FineTuningRecord.self, from: Data(text.utf8)) else {
                throw fail(
                    "fine_tuning metadata is not a valid record (JSON object with firstTrainedBlock, trainedTensorNames, epochs, augmentations)")
            }
            fineTuning = record
        }
        // Versions 1 to 4 predate test-time views: none by default, mirrored unless the model never saw a flip.
        var testTimeAugmentation = TestTimeAugmentationRecord.implied(byOlderFileWith: fineTuning)
        if version >= 5 {
            guard let text = metadata[Key.testTimeAugmentation] else {
                throw fail("corrupted header: no '\(Key.testTimeAugmentation)' metadata")
            }
            guard let record = try? JSONDecoder().decode(TestTimeAugmentationRecord.self, from: Data(text.utf8)) else {
                throw fail("test_time_augmentation metadata is not a valid record (JSON object with byDefault, mirrors)")
            }
            testTimeAugmentation = record
        }
        let model = ModelFile(
            labels: labels, preprocessing: preprocessing, backboneName: metadata[Key.backbone]!,
            backboneTensors: backbone, head: head, creationDate: metadata[Key.created]!,
            workbenchVersion: metadata[Key.workbenchVersion]!, trainingReportJSON: metadata[Key.trainingReport]!,
            temperature: temperature, confidenceThreshold: confidenceThreshold, fineTuning: fineTuning,
            testTimeAugmentation: testTimeAugmentation)
        if let problem = model.contentProblem() { throw fail(problem) }
        return model
    }

    /// Version 3 stores `ImagePreprocessing` itself; versions 1 and 2 stored an unversioned description with the
    /// same fields minus `version` and `alphaBackground`, which always meant version 1 on a white background.
    /// So did the first version 3 files (written from 3487c59 until 850f2f8 changed the description without a new
    /// format version): a version 3 description with neither of the two fields is read as the unversioned one.
    static func decodePreprocessing(_ text: String, formatVersion: Int, path: String) throws(ModelFileError) -> ImagePreprocessing {
        func fail(_ reason: String) -> ModelFileError { ModelFileError(path: path, reason: reason) }
        let data = Data(text.utf8)
        let preprocessing: ImagePreprocessing
        if formatVersion >= 3 && !isUnversionedDescription(data) {
            do {
                preprocessing = try JSONDecoder().decode(ImagePreprocessing.self, from: data)
            } catch {
                throw fail(
                    "preprocessing metadata is not a valid description (JSON object with version, name, inputSide, "
                        + "cropPadding, resample, mean, std, channelOrder, alphaBackground)\(Self.decodingDetail(error))")
            }
        } else {
            do {
                preprocessing = try JSONDecoder().decode(LegacyPreprocessingDescription.self, from: data).value
            } catch {
                throw fail(
                    "preprocessing metadata is not a valid description (JSON object with name, inputSide, cropPadding, "
                        + "resample, mean, std, channelOrder)\(Self.decodingDetail(error))")
            }
        }
        if let field = preprocessing.unsupportedField() {
            throw fail("preprocessing \(field)")
        }
        return preprocessing
    }

    /// Whether `data` is a JSON object with neither `version` nor `alphaBackground`: the description versions 1
    /// and 2 (and the first version 3 files) stored.
    private static func isUnversionedDescription(_ data: Data) -> Bool {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return false }
        return object["version"] == nil && object["alphaBackground"] == nil
    }

    /// ": field 'x' is missing" and the like, from a decoding error, or "".
    private static func decodingDetail(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): ": '\(key.stringValue)' is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            ": '\(context.codingPath.map(\.stringValue).joined(separator: "."))' has the wrong type"
        default: ""
        }
    }

    // MARK: - Container checks, before the generic safetensors parser sees the bytes

    static func readBytes(path: String) throws(ModelFileError) -> [UInt8] {
        do {
            return try SafetensorsFile.readBytes(path: path)
        } catch {
            throw ModelFileError(path: path, reason: error.reason == "is a folder, not a file" ? "is a folder, not a model file" : error.reason)
        }
    }

    static func headerLength(_ bytes: [UInt8]) -> Int {
        var length: UInt64 = 0
        for index in 0..<8 { length |= UInt64(bytes[index]) << (8 * UInt64(index)) }
        return Int(clamping: length)
    }

    /// Tells a foreign file from a truncated or corrupted model: a safetensors header is JSON right after the length.
    static func parseHeader(_ bytes: [UInt8], path: String) throws(ModelFileError) -> [String: Any] {
        func fail(_ reason: String) -> ModelFileError { ModelFileError(path: path, reason: reason) }
        guard bytes.count > 8 else {
            throw fail("too short to be a model file (\(bytes.count) bytes): truncated or not a Workbench model")
        }
        guard bytes[8] == UInt8(ascii: "{") else { throw fail("not a Workbench model (not a safetensors file)") }
        let length = headerLength(bytes)
        guard length <= bytes.count - 8 else {
            throw fail("truncated: the header needs \(length) bytes but only \(bytes.count - 8) follow its length field")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes[8..<(8 + length)])),
            let header = object as? [String: Any]
        else {
            throw fail("corrupted header: not a valid JSON object")
        }
        return header
    }

    static func metadataStrings(_ header: [String: Any], path: String) throws(ModelFileError) -> [String: String] {
        guard let entry = header["__metadata__"] else { return [:] }
        guard let strings = entry as? [String: String] else {
            throw ModelFileError(path: path, reason: "corrupted header: __metadata__ must map strings to strings")
        }
        return strings
    }

    /// Names the first tensor whose data would lie past the end of the file.
    static func checkDataLength(_ header: [String: Any], dataLength: Int, path: String) throws(ModelFileError) {
        for name in header.keys.sorted() where name != "__metadata__" {
            guard let entry = header[name] as? [String: Any], let offsets = entry["data_offsets"] as? [Int], offsets.count == 2 else {
                throw ModelFileError(path: path, reason: "corrupted header: tensor '\(name)' has a malformed entry")
            }
            if offsets[1] > dataLength {
                throw ModelFileError(
                    path: path, reason: "truncated: tensor '\(name)' ends at data byte \(offsets[1]) but the file holds only \(dataLength) data bytes"
                )
            }
        }
    }

    // MARK: - Content checks

    static func decodeLabels(_ text: String, path: String) throws(ModelFileError) -> [String] {
        guard let labels = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else {
            throw ModelFileError(path: path, reason: "labels metadata is not a JSON array of strings")
        }
        if let problem = labelsProblem(labels) { throw ModelFileError(path: path, reason: problem) }
        return labels
    }

    private static func decodeHead(_ tensors: [String: SafetensorsFile.Tensor], classCount: Int, path: String) throws(ModelFileError) -> HeadTensors {
        typealias Name = ModelFileFormat.HeadName
        for name in Name.all where tensors[name] == nil {
            throw ModelFileError(path: path, reason: "missing head tensor '\(name)'")
        }
        let mean = tensors[Name.featureMean]!
        guard mean.shape.count == 1, mean.shape[0] > 0 else {
            throw ModelFileError(
                path: path,
                reason: "tensor '\(Name.featureMean)' has shape \(ModelFileFormat.describe(mean.shape)), expected one non-empty dimension [D]")
        }
        let dimension = mean.shape[0]
        let expected: [(String, [Int])] = [
            (Name.featureScale, [dimension]), (Name.weight, [classCount, dimension]), (Name.bias, [classCount]),
        ]
        for (name, shape) in expected where tensors[name]!.shape != shape {
            throw ModelFileError(
                path: path,
                reason:
                    "tensor '\(name)' has shape \(ModelFileFormat.describe(tensors[name]!.shape)) but \(classCount) labels and feature dimension \(dimension) need \(ModelFileFormat.describe(shape))"
            )
        }
        return HeadTensors(
            featureMean: mean.values, featureScale: tensors[Name.featureScale]!.values,
            weights: tensors[Name.weight]!.values, bias: tensors[Name.bias]!.values)
    }

    /// The backbone's tensors against `expected` (`TensorMismatch`, the one strict check), refused in the model
    /// file's own words: the first kind of difference, missing before unused before wrong shapes.
    static func checkBackbone(_ backbone: [String: SafetensorsFile.Tensor], expected: [String: [Int]], path: String) throws(ModelFileError) {
        guard let mismatch = TensorMismatch(tensors: backbone, expected: expected) else { return }
        if !mismatch.missing.isEmpty {
            throw ModelFileError(path: path, reason: "missing backbone tensors: \(ModelFileFormat.list(mismatch.missing))")
        }
        if !mismatch.unused.isEmpty {
            throw ModelFileError(path: path, reason: "unused backbone tensors: \(ModelFileFormat.list(mismatch.unused))")
        }
        let wrong = mismatch.wrongShapes
        let details = wrong.prefix(4).map {
            "'\($0.name)' is \(ModelFileFormat.describe($0.shape)), expected \(ModelFileFormat.describe($0.expected))"
        }
        let more = wrong.count > 4 ? " and \(wrong.count - 4) more" : ""
        throw ModelFileError(path: path, reason: "backbone tensors with the wrong shape: \(details.joined(separator: "; "))\(more)")
    }
}
