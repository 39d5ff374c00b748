/// What `workbench classify` is asked to do.
public struct ClassifyRequest: Sendable {
    /// Image files and folders (walked recursively, `ImageFileList.expand`).
    public var inputs: [String]
    /// A label whose confidence is reported whatever the best label is; must be one of the model's.
    public var label: String?
    /// Whether answers below the model's confidence threshold become "unknown"; the model must have one
    /// (`train --target-precision`).
    public var abstains = false
    /// Whether the first file that cannot be read ends the run instead of being skipped and counted.
    public var strict = false

    /// Classifies `inputs`, skipping unreadable files.
    public init(inputs: [String]) { self.inputs = inputs }
}

/// How a classify run went.
public struct ClassifyOutcome: Sendable, Equatable {
    /// Images of the run, unreadable entries included.
    public var images: Int
    /// Images that could not be classified (each reported as `.skipped`).
    public var failed: Int
}

extension ClassificationWorkflow {
    /// `workbench classify`: checks the request against the model (the label is one of its labels, a threshold is
    /// there to abstain with), gathers the images (`ImageFileList.gather`) and delivers each prediction in input
    /// order. Unreadable files are reported and counted, or with `strict` the first is thrown. When `deliver`
    /// returns false (its output failed) no more files are started.
    public static func classify(
        _ request: ClassifyRequest, classifier: Classifier, extractor: FeatureExtractor,
        events: (ImageFilesEvent) -> Void, deliver: (Prediction) -> Bool
    ) throws(WorkbenchError) -> ClassifyOutcome {
        if let label = request.label, !classifier.labels.contains(label) {
            throw WorkbenchError(path: classifier.path, reason: "the model has no label '\(label)' (labels: \(classifier.labels.joined(separator: ", ")))")
        }
        if request.abstains, classifier.confidenceThreshold == nil {
            throw WorkbenchError(path: classifier.path, reason: "the model has no confidence threshold to abstain below: train it with a target precision")
        }
        let list = try ImageFileList.gather(request.inputs, strict: request.strict, events: events)
        var outcome = ClassifyOutcome(images: list.count, failed: list.unreadable.count)
        var stop: WorkbenchError?
        events(.started(images: list.files.count))
        classify(paths: list.files, classifier: classifier, extractor: extractor) { index, _, result in
            defer { events(.progress(done: index + 1, total: list.files.count)) }
            switch result {
            case .success(let prediction):
                return deliver(prediction)
            case .failure(let error):
                outcome.failed += 1
                if request.strict {
                    stop = error
                    return false
                }
                events(.skipped(error))
                return true
            }
        }
        if let stop { throw stop }
        return outcome
    }
}
