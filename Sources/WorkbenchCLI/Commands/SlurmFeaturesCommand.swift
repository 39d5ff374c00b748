import ArgumentParser
import Workbench

struct SlurmFeaturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "features",
        abstract: "Fill the feature cache of a dataset as a Slurm array job, for train to run from it.",
        discussion: """
            Task i of the array runs `workbench features INPUTS... --fill-cache --shard i/N` with the feature cache \
            this command would use ($WORKBENCH_CACHE, else ~/.cache/workbench/features), which must be on storage \
            every node sees. Once the job is done, `workbench train` over the same images reads every feature from \
            the cache. Prints the job id.

            Examples:
              workbench slurm features datasets/drawings --tasks 4 --dry-run
              workbench slurm features photos/ --tasks 2 --cpus-per-task 2 --dry-run

            Docs: docs/cluster.md
            """)

    @Argument(help: ArgumentHelp("Image files or folders (a dataset folder: every split).", valueName: "image-or-folder"))
    var inputs: [String]

    @OptionGroup var backboneOptions: BackboneOptions
    @OptionGroup(title: "Slurm") var slurm: SlurmOptions

    func run() throws {
        try Console.run {
            slurm.render(try SlurmWorkflow.run(slurm.request(.features(inputs: inputs, backbone: backboneOptions.backbone))))
        }
    }
}
