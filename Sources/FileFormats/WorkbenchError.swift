/// Marks the errors of the workflows and the engines they run (`Inference`, the training run, the `Workbench` API).
public enum WorkbenchErrorDomain {}

/// A user-facing failure of a workflow, one line, naming the file where there is one: "path: reason".
public typealias WorkbenchError = OptionalPathError<WorkbenchErrorDomain>
