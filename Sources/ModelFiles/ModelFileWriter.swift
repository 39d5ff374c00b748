import FileFormats

extension ModelFile {
    /// Writes the model atomically (temporary file in the same folder, then rename): a failed write leaves any
    /// existing file untouched. Equal values give byte-identical files.
    ///
    /// The content is checked first with the same rules `read` applies, so a written file always loads.
    public func write(path: String) throws(ModelFileError) {
        try ModelFileFormat.write(serializedContainer, problem: contentProblem(), to: path)
    }

    /// The safetensors container holding this model.
    func serializedContainer() -> SafetensorsFile {
        typealias Key = ModelFileFormat.MetadataKey
        var tensors: [String: SafetensorsFile.Tensor] = [:]
        for (name, tensor) in backboneTensors {
            tensors[ModelFileFormat.backbonePrefix + name] = tensor
        }
        let classes = head.classCount, dimension = head.featureDimension
        tensors[ModelFileFormat.HeadName.featureMean] = .init(shape: [dimension], values: head.featureMean)
        tensors[ModelFileFormat.HeadName.featureScale] = .init(shape: [dimension], values: head.featureScale)
        tensors[ModelFileFormat.HeadName.weight] = .init(shape: [classes, dimension], values: head.weights)
        tensors[ModelFileFormat.HeadName.bias] = .init(shape: [classes], values: head.bias)
        var metadata = ModelFileFormat.commonMetadata(
            kind: ModelFileFormat.classifierKind, labels: labels, preprocessing: preprocessing, backboneName: backboneName,
            creationDate: creationDate, workbenchVersion: workbenchVersion, trainingReportJSON: trainingReportJSON)
        // Swift's description of a Double is the shortest text that reads back to the same value; encoding a plain
        // Codable struct cannot fail.
        metadata[Key.temperature] = String(describing: temperature)
        if let confidenceThreshold { metadata[Key.confidenceThreshold] = String(describing: confidenceThreshold) }
        if let fineTuning { metadata[Key.fineTuning] = ModelFileFormat.canonicalJSON(fineTuning) ?? "{}" }
        metadata[Key.testTimeAugmentation] = ModelFileFormat.canonicalJSON(testTimeAugmentation) ?? "{}"
        return ModelFileFormat.sealedContainer(tensors: tensors, metadata: metadata)
    }

    /// The first rule this value breaks, or nil. `read` enforces the same rules on what it loads.
    func contentProblem() -> String? {
        if let problem = Self.labelsProblem(labels) { return problem }
        let classes = labels.count, dimension = head.featureDimension
        if dimension == 0 { return "tensor '\(ModelFileFormat.HeadName.featureMean)' is empty" }
        let actual: [(String, Int, Int)] = [
            (ModelFileFormat.HeadName.featureScale, head.featureScale.count, dimension),
            (ModelFileFormat.HeadName.bias, head.bias.count, classes),
            (ModelFileFormat.HeadName.weight, head.weights.count, classes * dimension),
        ]
        for (name, count, expected) in actual where count != expected {
            return "tensor '\(name)' holds \(count) values but \(classes) labels and feature dimension \(dimension) need \(expected)"
        }
        // A diverged fit must not be saved, and a file must not smuggle NaN in: every result would be NaN.
        let head: [(String, [Float])] = [
            (ModelFileFormat.HeadName.featureMean, head.featureMean), (ModelFileFormat.HeadName.featureScale, head.featureScale),
            (ModelFileFormat.HeadName.weight, head.weights), (ModelFileFormat.HeadName.bias, head.bias),
        ]
        for (name, values) in head {
            if let index = values.firstIndex(where: { !$0.isFinite }) {
                return "tensor '\(name)' holds \(values[index]) at index \(index): weights must be finite numbers"
            }
        }
        for name in backboneTensors.keys.sorted() {
            if let index = backboneTensors[name]!.values.firstIndex(where: { !$0.isFinite }) {
                return
                    "tensor '\(ModelFileFormat.backbonePrefix)\(name)' holds \(backboneTensors[name]!.values[index]) at index \(index): weights must be finite numbers"
            }
        }
        if let empty = backboneTensors.keys.sorted().first(where: { $0.isEmpty }) {
            return "backbone tensor with an empty name '\(empty)'"
        }
        if !ModelFileFormat.isValidJSON(trainingReportJSON) { return "the training report is not valid JSON" }
        if !(temperature.isFinite && temperature > 0) { return "the temperature \(temperature) is not a positive number" }
        if let confidenceThreshold, !(0...1).contains(confidenceThreshold) {
            return "the confidence threshold \(confidenceThreshold) is not between 0 and 1"
        }
        if let field = preprocessing.unsupportedField() { return "preprocessing \(field)" }
        if let fineTuning, let problem = fineTuning.problem(backboneTensorNames: Set(backboneTensors.keys)) {
            return problem
        }
        for (field, value) in [("backbone name", backboneName), ("creation date", creationDate), ("Workbench version", workbenchVersion)]
        where value.isEmpty {
            return "the \(field) is empty"
        }
        return nil
    }

    /// Labels must be a non-empty list of unique, non-empty names.
    static func labelsProblem(_ labels: [String]) -> String? {
        if labels.isEmpty { return "labels: the list is empty" }
        if labels.contains(where: { $0.isEmpty }) { return "labels: a label is the empty string" }
        var seen = Set<String>()
        for label in labels where !seen.insert(label).inserted {
            return "labels: '\(label)' appears more than once"
        }
        return nil
    }
}
