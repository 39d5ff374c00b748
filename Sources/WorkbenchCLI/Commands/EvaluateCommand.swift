import ArgumentParser
import Foundation
import Workbench

struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Measure a trained model (classifier or detector) on labelled pictures.",
        discussion: """
            For a classifier, FOLDER holds one subfolder of images per label, or is a dataset folder, whose testing \
            split is used. With --shard I/N (or inside a Slurm array job) only that part of the images is evaluated.

            For a detector (train on annotations makes one), FOLDER is what train takes: a folder with Create ML's \
            annotations.json, a dataset folder whose "Testing Data/" has one (that split is scored), or an \
            annotations file (detect --json's output, corrected); --min-score replaces the model's stored threshold. \
            --tta averages test-time views: a classifier's (the image, its centre 7/8, both mirrored), or a \
            detector's mirror.

            Examples:
              workbench evaluate Drawings.wbmodel "datasets/drawings/Testing Data"
              workbench evaluate Drawings.wbmodel datasets/drawings --json
              workbench evaluate Drawings.wbmodel datasets/drawings --html evaluation.html
              workbench evaluate Drawings.wbmodel "Testing Data" --shard 1/2
              workbench evaluate Drawings.wbmodel datasets/drawings --tta
              workbench evaluate Shapes.wbmodel shapes
              workbench evaluate Shapes.wbmodel shapes --tta
              workbench evaluate Shapes.wbmodel shapes/annotations.json --json
              workbench evaluate Shapes.wbmodel shapes --min-score 0.3 --html boxes.html

            Docs: docs/classify-and-evaluate.md; detectors: docs/train-detector.md
            """)

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Argument(help: ArgumentHelp("A folder of label subfolders; for a detector, annotations (a folder or file).", valueName: "folder"))
    var folder: String

    @Flag(help: "Print the evaluation as JSON.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp("Also write an HTML report with the misclassified images (a detector's: its boxes on the pictures).", valueName: "file"))
    var html: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Detector: precision, recall and F1 at this score, 0 to 1 (default: the model's stored threshold).", valueName: "score"))
    var minScore: Double?

    @OptionGroup(title: "Test-time augmentation") var testTime: TestTimeAugmentationOptions
    @OptionGroup var compute: ComputeOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup var skipping: StrictOption
    @OptionGroup var sharding: ShardOptions

    func validate() throws {
        if let minScore, !(minScore.isFinite && (0...1).contains(minScore)) {
            throw ValidationError("--min-score must be between 0 and 1, got \(minScore)")
        }
        if DetectorModelFile.isDetector(path: model) {
            for (name, given) in [("--strict", skipping.strict), ("--shard", sharding.shard != nil)] where given {
                throw ValidationError("\(name) is for classifiers; \(model) is a detector model")
            }
        } else if minScore != nil, FileManager.default.fileExists(atPath: model) {
            throw ValidationError("--min-score is for detector models; \(model) is not one")
        }
    }

    func run() throws {
        try Console.run {
            if DetectorModelFile.isDetector(path: model) { return try evaluateDetector() }
            let classifier = try Classifier.load(path: model)
            var request = EvaluationRequest(folder: folder, model: .loaded(classifier))
            request.features = compute.settings(usesCache: !cache.noCache)
            request.strict = skipping.strict
            request.shard = try sharding.resolve()
            request.page = html
            request.testTimeAugmentation = testTime.tta
            let progress = EvaluationProgress()
            let result = try EvaluationWorkflow.run(request, events: progress.render)
            progress.finish()
            try Console.output(
                json ? EvaluationRendering.json(result, classifier: classifier) : EvaluationRendering.text(result, classifier: classifier))
            if let html {
                if json { Console.warn("report written to \(html)") } else { Console.outputLine("report written to \(html)") }
            }
        }
    }

    /// A detector model: its boxes on the annotated pictures, scored as train scores its testing pictures.
    private func evaluateDetector() throws {
        var request = DetectorEvaluationRequest(modelPath: model, datasetPath: folder)
        request.minimumScore = minScore
        request.page = html
        request.mirror = testTime.tta == true
        let progress = EvaluationProgress()
        request.features = compute.settings(usesCache: !cache.noCache)
        let outcome = try DetectorEvaluationWorkflow.run(request) { event in
            if case .progress(let done, let total) = event { progress.update(done: done, total: total) }
        }
        progress.finish()
        if !outcome.clippedBoxes.isEmpty { Console.warn(AnnotationWarnings.clipped(outcome.clippedBoxes, file: outcome.annotationsFile)) }
        try Console.output(json ? ReportJSON.text(outcome.scores) : DetectorEvaluationRendering.text(outcome, model: model))
        if let html {
            if json { Console.warn("report written to \(html)") } else { Console.outputLine("report written to \(html)") }
        }
    }
}
