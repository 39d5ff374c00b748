import ArgumentParser
import Workbench

struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Measure a trained model on a labelled folder.",
        discussion: """
            FOLDER holds one subfolder of images per label (or is a dataset folder, whose testing split is used). \
            Prints accuracy, the confusion matrix, per-label precision, recall and F1, and the misclassified files.

            With --shard I/N (or inside a Slurm array job) only that part of the images is evaluated.

            Examples:
              workbench evaluate Drawings.wbmodel "datasets/drawings/Testing Data"
              workbench evaluate Drawings.wbmodel datasets/drawings --json
              workbench evaluate Drawings.wbmodel datasets/drawings --html evaluation.html
              workbench evaluate Drawings.wbmodel "Testing Data" --shard 1/2
              workbench evaluate Drawings.wbmodel datasets/drawings --tta
            """)

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Argument(help: ArgumentHelp("A folder of label subfolders.", valueName: "folder"))
    var folder: String

    @Flag(help: "Print the evaluation as JSON.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Also write an HTML report with the misclassified images.", valueName: "file"))
    var html: String?

    @OptionGroup(title: "Test-time augmentation") var testTime: TestTimeAugmentationOptions
    @OptionGroup var compute: ComputeOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup var skipping: StrictOption
    @OptionGroup var sharding: ShardOptions

    func run() throws {
        try Console.run {
            let classifier = try Classifier.load(path: model)
            var request = EvaluationRequest(folder: folder)
            request.strict = skipping.strict
            request.shard = try sharding.resolve()
            request.page = html
            request.testTimeAugmentation = testTime.tta
            let progress = EvaluationProgress()
            let result = try ClassificationWorkflow.evaluate(
                request, classifier: classifier, extractor: compute.extractor(backbone: classifier.backbone, usesCache: !cache.noCache),
                progress: progress.update, warning: progress.warn)
            progress.finish()
            try Console.output(json ? EvaluationRendering.json(result, classifier: classifier) : EvaluationRendering.text(result, classifier: classifier))
            if let html {
                if json { Console.warn("report written to \(html)") } else { Console.outputLine("report written to \(html)") }
            }
        }
    }
}
