import FileFormats

/// Marks the errors of the facade's workflows.
public enum WorkbenchErrorDomain {}

/// A user-facing failure of a workflow, one line, naming the file where there is one: "path: reason".
public typealias WorkbenchError = OptionalPathError<WorkbenchErrorDomain>
