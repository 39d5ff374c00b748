import FileFormats

/// Marks the errors of planning, writing or submitting a cluster job.
public enum ClusterJobErrorDomain {}

/// A failure planning, writing or submitting a cluster job: one line, naming the file where there is one.
public typealias ClusterJobError = OptionalPathError<ClusterJobErrorDomain>
