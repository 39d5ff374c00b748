/// The classifier a workflow runs: a model file the run reads, or one a program has already loaded (read once and
/// used for several runs). A file is read before anything else, so a bad model is the first error.
public enum ClassifierSource: Sendable {
    /// The model file at this path.
    case path(String)
    /// A classifier already loaded (`Classifier.load`).
    case loaded(Classifier)

    /// The classifier, reading its file when it is one.
    public func load() throws(WorkbenchError) -> Classifier {
        switch self {
        case .path(let path): try Classifier.load(path: path)
        case .loaded(let classifier): classifier
        }
    }
}
