import FileFormats

/// Marks the errors of planning, writing or submitting a cluster job.
public enum ClusterJobErrorDomain {}

/// A failure planning, writing or submitting a cluster job: one line, naming the file where there is one.
public typealias ClusterJobError = OptionalPathError<ClusterJobErrorDomain>

extension ErrorHint {
    /// The jobs cannot be submitted from here, but their scripts can still be shown (`SlurmPlan.dryRunText`).
    public static let printScriptsInstead = ErrorHint("ClusterJobs.printScriptsInstead")
}
