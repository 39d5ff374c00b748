import ArgumentParser
import Workbench

struct SlurmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slurm",
        abstract: "Split a labeling run or a feature-cache fill into a Slurm array job, and submit it.",
        discussion: """
            Writes sbatch scripts (one array task per shard; for label, a merge job that waits for every task to \
            succeed) into --job-folder, submits them with sbatch and prints each job's id and log files. Paths in \
            the scripts are absolute and the tasks run this workbench binary: keep them on storage every node sees. \
            --dry-run prints the scripts instead.

            Examples:
              workbench slurm label Drawings.wbmodel clips/*.mp4 --tasks 2 --dry-run
              workbench slurm features datasets/drawings --tasks 4 --dry-run

            Docs: docs/cluster.md
            """,
        subcommands: [SlurmLabelCommand.self, SlurmFeaturesCommand.self])
}
