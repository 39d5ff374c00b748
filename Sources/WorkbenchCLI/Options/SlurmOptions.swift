import ArgumentParser
import Workbench

/// What every `workbench slurm` command asks of the cluster.
struct SlurmOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Array tasks, one shard of the inputs each.", valueName: "n"))
    var tasks: Int

    @Option(name: .long, help: ArgumentHelp("The partition (default: the cluster's).", valueName: "name"))
    var partition: String?

    @Option(name: .long, help: ArgumentHelp("Time limit per task, e.g. 30, 2:00:00 or 1-12 (default: the partition's).", valueName: "time"))
    var time: String?

    @Option(name: .long, help: ArgumentHelp("CPUs per task; each task runs that many threads.", valueName: "n"))
    var cpusPerTask: Int = 1

    @Option(name: .long, help: ArgumentHelp("Where the scripts and logs/ go.", valueName: "folder"))
    var jobFolder: String = "workbench-jobs"

    @Flag(name: .long, help: "Print the scripts instead of writing and submitting them.")
    var dryRun = false

    func validate() throws {
        guard tasks >= 1 else { throw ValidationError("--tasks must be at least 1") }
        guard cpusPerTask >= 1 else { throw ValidationError("--cpus-per-task must be at least 1") }
    }

    var request: SlurmRequest {
        var request = SlurmRequest(tasks: tasks, jobFolder: jobFolder)
        request.partition = partition
        request.timeLimit = time
        request.cpusPerTask = cpusPerTask
        return request
    }

    /// `job` on this cluster, submitted unless --dry-run.
    func request(_ job: SlurmJobRequest.Job) -> SlurmJobRequest {
        var request = SlurmJobRequest(job: job, cluster: self.request)
        request.submits = !dryRun
        return request
    }

    /// Prints the plan's scripts (--dry-run), or one line per job submitted: its id, what it does and where its
    /// logs go.
    func render(_ result: SlurmResult) {
        if dryRun {
            Console.output(result.plan.dryRunText)
            return
        }
        for job in result.submitted {
            Console.outputLine("\(job.id)\t\(job.summary)\t\(job.logPattern)")
        }
    }
}
