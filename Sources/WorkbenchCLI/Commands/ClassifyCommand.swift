import ArgumentParser
import Foundation
import Workbench

struct ClassifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Label images with a trained model.",
        discussion: """
            Prints per image its path, then the best label and its confidence (the K best with --top K), tab \
            separated. --label puts one label and its confidence first, whatever the top label is; with --top K the \
            K most probable labels follow it. --abstain answers "unknown" below the confidence threshold the model \
            was trained for (train --target-precision). Unreadable files get one line on stderr; the exit status is \
            1 when any failed.

            Examples:
              workbench classify Drawings.wbmodel photo.jpg
              workbench classify Drawings.wbmodel "Testing Data" --top 3
              workbench classify Drawings.wbmodel drawing.png --label Mammal --top 2
              workbench classify Drawings.wbmodel photos/ --json > predictions.jsonl
              workbench classify Drawings.wbmodel photo.jpg --tta

            Docs: docs/classify-and-evaluate.md
            """)

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Argument(help: ArgumentHelp("Image files or folders.", valueName: "image-or-folder"))
    var inputs: [String]

    @Option(name: .long, help: ArgumentHelp("Show the K most probable labels (after --label's, when given).", valueName: "k"))
    var top: Int = 1

    @Option(name: .long, help: ArgumentHelp("Report this label's confidence instead of the best label's.", valueName: "label"))
    var label: String?

    @Flag(help: "Answer \"unknown\" below the model's confidence threshold (set by train --target-precision).")
    var abstain = false

    @Flag(help: "Write JSON Lines: {\"path\", \"label\", \"confidence\", \"probabilities\"} per image, and \"top\" with --top K > 1.")
    var json = false

    @OptionGroup(title: "Test-time augmentation") var testTime: TestTimeAugmentationOptions
    @OptionGroup var compute: ComputeOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup var skipping: StrictOption

    func validate() throws {
        guard top >= 1 else { throw ValidationError("--top must be at least 1, got \(top)") }
        if abstain, label != nil { throw ValidationError("--abstain and --label do not go together: --label reports a score, not an answer") }
    }

    func run() throws {
        try Console.run {
            let classifier = try Classifier.load(path: model)
            var request = ClassifyRequest(inputs: inputs, model: .loaded(classifier))
            request.features = compute.settings(usesCache: !cache.noCache)
            request.label = label
            request.abstains = abstain
            request.strict = skipping.strict
            request.testTimeAugmentation = testTime.tta
            let lines = PredictionLines(
                labels: classifier.labels, label: label, top: top,
                threshold: abstain ? classifier.confidenceThreshold : nil, json: json)
            let progress = ImageFilesProgress(label: "classify")
            defer { progress.clear() }
            let outcome = try ClassificationWorkflow.run(request, events: progress.render) { prediction in
                progress.clear()
                // A failed stdout stops the run; Console reports it.
                return Console.output(lines.line(prediction))
            }
            if outcome.failed > 0 && !Console.outputFailed {
                Console.warn("\(outcome.failed) of \(outcome.images) images could not be classified")
                throw ExitCode(1)
            }
        }
    }
}
