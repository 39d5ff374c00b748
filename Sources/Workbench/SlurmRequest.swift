import ClusterJobs
import Datasets
import FileFormats
import Foundation

/// What a `workbench slurm` command asks of the cluster and where its files go.
public struct SlurmRequest: Sendable {
    /// Array tasks, one shard each.
    public var tasks: Int
    /// `--partition`; nil is the cluster's default.
    public var partition: String?
    /// `--time`; nil is the partition's default.
    public var timeLimit: String?
    /// `--cpus-per-task`; each task runs this many threads.
    public var cpusPerTask: Int = 1
    /// Where the scripts and the `logs/` folder go (on storage every node sees).
    public var jobFolder: String
    /// The `workbench` the tasks run; nil is this very binary.
    public var executable: String?

    /// A request for `tasks` tasks with files in `jobFolder`.
    public init(tasks: Int, jobFolder: String) {
        self.tasks = tasks
        self.jobFolder = jobFolder
    }
}

/// Batch jobs ready to submit: each script, where it goes, and whether it waits for the job before it.
public struct SlurmPlan: Sendable {
    /// One job of the plan.
    public struct Job: Sendable {
        /// The batch script's text.
        public let script: String
        /// Where it is written.
        public let scriptPath: String
        /// Whether it starts only after every task of the previous job has succeeded.
        public let afterPrevious: Bool
        /// One line: what the job does.
        public let summary: String
        /// Its tasks' log files, with `%A`, `%a` or `%j` where Slurm puts the ids.
        public let logPattern: String
    }

    /// The jobs, in submission order.
    public let jobs: [Job]
    /// Run before the first submission (a sharded label run's results folder and manifest).
    let prepare: @Sendable () throws(WorkbenchError) -> Void

    /// The scripts as `--dry-run` prints them, each after a comment with the command that submits it.
    public var dryRunText: String {
        jobs.map { job in
            let submission = SlurmSubmitter.commandLine(
                scriptPath: job.scriptPath,
                afterOK: job.afterPrevious ? "<previous job id>" : nil)
            return "# \(job.summary)\n# \(submission)\n\(job.script)"
        }.joined(separator: "\n")
    }
}

/// What `workbench slurm` is asked to do: a job, on a cluster, submitted or only planned.
public struct SlurmJobRequest: Sendable {
    /// The work the array tasks share.
    public enum Job: Sendable {
        /// `workbench label` over `movies` with `model`, each task's markers into `results` (nil: the job
        /// folder's `label-results`), then one merge job into `movieData`.
        case label(model: String, movies: [String], movieData: String, results: String?, settings: LabelSettings)
        /// `workbench features --fill-cache` over `inputs` with the backbone at `backbone` (nil: set-up's).
        case features(inputs: [String], backbone: String?)
    }

    /// The job.
    public var job: Job
    /// The cluster's side: tasks, partition, time, CPUs, the job folder.
    public var cluster: SlurmRequest
    /// Whether the scripts are written and submitted (false: only planned, for a dry run).
    public var submits = true

    /// A job to plan and submit on `cluster`.
    public init(job: Job, cluster: SlurmRequest) {
        self.job = job
        self.cluster = cluster
    }
}

/// What a Slurm run reports as it goes.
public enum SlurmEvent: Sendable {
    /// A job was submitted.
    case submitted(SlurmWorkflow.Submitted)
}

/// What a Slurm run planned and submitted.
public struct SlurmResult: Sendable {
    /// The plan: each job's script, where it goes and what it waits for.
    public var plan: SlurmPlan
    /// The jobs submitted, in order (none for a dry run).
    public var submitted: [SlurmWorkflow.Submitted]
}
