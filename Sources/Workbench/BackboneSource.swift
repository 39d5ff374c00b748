/// Where a workflow's backbone comes from: set-up's pretrained weights or a model file's own (fine-tuned) copy.
/// Workflows read it only once their inputs and outputs are checked, so a bad path fails before the weights load.
public enum BackboneSource: Sendable, Equatable {
    /// Set-up's weights file: this path (`--backbone`), or nil for `BackboneLocation.resolve`'s search.
    case pretrained(path: String?)
    /// The backbone and preprocessing stored in the model file at this path (`features --model`).
    case model(path: String)

    /// The backbone's tensors and preprocessing.
    public func load() throws(WorkbenchError) -> Backbone {
        switch self {
        case .pretrained(let path): try Backbone.load(path: BackboneLocation.resolve(explicit: path))
        case .model(let path): try Classifier.load(path: path).backbone
        }
    }

    /// The file the backbone is read from: the one named, or set-up's weights where the search finds them (nil when
    /// it finds none; `load` then says so), which no output may replace.
    var filePath: String? {
        switch self {
        case .pretrained(let path): return path ?? (try? BackboneLocation.resolve(explicit: nil))
        case .model(let path): return path
        }
    }
}
