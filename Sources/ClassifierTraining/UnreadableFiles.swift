import FileFormats

/// The files a run could not read, kept for the report. With `strict` the first one stops the run; otherwise each
/// is skipped with a warning. Training and evaluation share it, so both treat a bad file the same way.
public struct UnreadableFiles {
    /// Whether the first unreadable file stops the run.
    public let strict: Bool
    /// Every file skipped so far, in order: the scan's entries first, then the images that failed to decode.
    public private(set) var problems: [TrainingReport.Problem]
    /// The failure that stopped a strict run, thrown once the pipeline that met it has returned.
    public private(set) var stopping: WorkbenchError?

    /// Starts from the entries a folder scan found but cannot read: with `strict` the first is thrown, otherwise
    /// each is a warning.
    public init(scanned: [TrainingReport.Problem], strict: Bool, warning: (String) -> Void) throws(WorkbenchError) {
        if strict, let first = scanned.first { throw WorkbenchError(path: first.path, reason: first.reason) }
        for problem in scanned { warning("\(problem.path): \(problem.reason) (skipped)") }
        self.strict = strict
        problems = scanned
    }

    /// Records an image that failed to decode; returns whether the run goes on (false once a strict run stops).
    public mutating func skip(_ error: WorkbenchError, path: String, warning: (String) -> Void) -> Bool {
        problems.append(.init(path: path, reason: error.reason))
        if strict {
            stopping = error
            return false
        }
        warning("\(error) (skipped)")
        return true
    }
}
