import ArgumentParser
import Workbench

/// `--shard I/N` for the commands whose inputs can be split between the tasks of a cluster job.
struct ShardOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Work on part I of N of the inputs (0/4 to 3/4), the same balanced split in every task. Default: the array task's part under Slurm (SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, WORKBENCH_SHARD_COUNT); 0/1 is everything.",
            valueName: "I/N"))
    var shard: String?

    func validate() throws {
        if let shard {
            do { _ = try Shard(parsing: shard) } catch { throw ValidationError("--shard: \(error)") }
        }
    }

    /// The shard to work on, or nil for every input. One taken from the environment is said on stderr, since a
    /// command run inside someone's own array job would otherwise quietly do only part of its work.
    func resolve() throws -> Shard? {
        guard let (shard, source) = try InputSharding.resolve(option: shard) else { return nil }
        if source != .option { Console.warn("shard \(shard) (from \(source); --shard 0/1 works on every input)") }
        return shard
    }
}
