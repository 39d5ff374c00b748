/// What `workbench evaluate` is asked to do.
public struct EvaluationRequest: Sendable {
    /// A folder of label subfolders, or a dataset folder (its testing split is evaluated).
    public var folder: String
    /// Whether the first file that cannot be read ends the run instead of being skipped and listed.
    public var strict = false
    /// Only this part of the images (`--shard I/N`); nil is all of them.
    public var shard: Shard?
    /// Also write the HTML page (`ModelReports.evaluationPage`) here; checked before any work.
    public var page: String?

    /// Evaluates `folder`, every image, writing no page.
    public init(folder: String) { self.folder = folder }
}

extension ClassificationWorkflow {
    /// `workbench evaluate`: `evaluate(folder:...)` as `request` asks, then the page when one is asked for (its path
    /// is checked before the images are read, and must be neither the model nor the folder).
    public static func evaluate(
        _ request: EvaluationRequest, classifier: Classifier, extractor: FeatureExtractor,
        progress: (_ done: Int, _ total: Int) -> Void, warning: (String) -> Void
    ) throws(WorkbenchError) -> EvaluationResult {
        try WritableOutput.checkConflicts(inputs: [classifier.path, request.folder], outputs: [request.page])
        if let page = request.page { try WritableOutput.check(page) }
        let result = try evaluate(folder: request.folder, classifier: classifier, extractor: extractor, strict: request.strict,
                                  shard: request.shard, progress: progress, warning: warning)
        if let page = request.page {
            try ModelReports.write(try ModelReports.evaluationPage(result, folder: request.folder, classifier: classifier,
                                                                   extractor: extractor), to: page)
        }
        return result
    }
}
