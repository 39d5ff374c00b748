import ArgumentParser
import Workbench

struct SlurmLabelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label",
        abstract: "Label movies as a Slurm array job, then merge the results into MovieData.json.",
        discussion: """
            Task i of the array runs `workbench label MODEL MOVIES... --results DIR --shard i/N`, writing one result \
            file per movie (a requeued task skips the movies it finished); the merge job then runs `workbench label \
            merge DIR --movie-data FILE`. A movie's id is its file name without extension. Prints the two job ids.

            Examples:
              workbench slurm label Drawings.wbmodel clips/*.mp4 --tasks 2 --dry-run
              workbench slurm label Drawings.wbmodel movie.mp4 --tasks 1 --time 5 --dry-run

            Docs: docs/cluster.md
            """)

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Argument(help: ArgumentHelp("Video files or folders of numbered frames.", valueName: "movie"))
    var movies: [String]

    @Option(name: .long, help: ArgumentHelp("The player's file the merge job updates.", valueName: "file"))
    var movieData: String = "MovieData.json"

    @Option(name: .long, help: ArgumentHelp("The results folder (default: label-results in --job-folder).", valueName: "folder"))
    var results: String?

    @Option(name: .long, help: ArgumentHelp("Seconds between sampled frames.", valueName: "seconds"))
    var every: Double = 1

    @Option(name: .long, help: ArgumentHelp("Frame rate of a frames folder (overrides --every for folders).", valueName: "fps"))
    var fps: Double?

    @OptionGroup(title: "Markers") var markerOptions: MarkerOptions
    @OptionGroup(title: "Test-time augmentation") var testTime: TestTimeAugmentationOptions
    @OptionGroup(title: "Slurm") var slurm: SlurmOptions

    func validate() throws {
        try LabelCommand.validate(every: every, fps: fps, markers: markerOptions)
    }

    func run() throws {
        try Console.run {
            var settings = markerOptions.settings(every: every, framesPerSecond: fps)
            settings.testTimeAugmentation = testTime.tta
            let job = SlurmJobRequest.Job.label(model: model, movies: movies, movieData: movieData, results: results, settings: settings)
            slurm.render(try SlurmWorkflow.run(slurm.request(job)))
        }
    }
}
