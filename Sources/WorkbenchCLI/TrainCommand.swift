import ArgumentParser
import Foundation
import Workbench

struct TrainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Train a classifier from folders of images, one subfolder per label.",
        discussion: """
            DATASET holds "Training Data/" and "Testing Data/" (Create ML's layout), or train/, val/ and test/, or is \
            itself a folder of label subfolders. The L2 strength is chosen by 5-fold cross-validation over the \
            training images (repeated for small datasets; one stratified 20 % held out above 2,000 images), or on the \
            validation folder or --validation-fraction share when given; then the model is fitted on all training \
            images. A temperature fitted on the held-out predictions calibrates every confidence the model gives. \
            Features are cached, so training again with other head settings skips the network. The model is written \
            to -o, by default to the dataset folder's name with its first letter upper-cased, in the working \
            directory (datasets/drawings gives Drawings.wbmodel).

            Examples:
              workbench train datasets/drawings
              workbench train "Training Data" --test "Testing Data" -o Drawings.wbmodel
              workbench train datasets/drawings --l2 10 --class-weights balanced
              workbench train datasets/drawings --target-precision 0.95
              workbench train datasets/drawings --report report.json --json
              workbench train datasets/drawings --html report.html
            """)

    @Argument(help: ArgumentHelp("The dataset folder.", valueName: "dataset"))
    var dataset: String

    @Option(name: .long, help: ArgumentHelp("A testing folder (label subfolders).", valueName: "folder"))
    var test: String?

    @Option(name: .long, help: ArgumentHelp("A validation folder (label subfolders).", valueName: "folder"))
    var validation: String?

    @Option(name: .long, help: "Hold out this share of the training images instead of cross-validating (0 holds out nothing: no choice of L2, no calibration).")
    var validationFraction: Double?

    @Option(name: .long, help: "Seed of the folds and held-out split.")
    var seed: UInt64 = 42

    @Option(name: .long, help: "L2 regularisation strength (default: chosen on held-out predictions).")
    var l2: Double?

    @Option(name: .long, help: ArgumentHelp("Store the lowest confidence threshold whose held-out answers are right this share of the time (for classify --abstain, label --min-confidence auto).", valueName: "p"))
    var targetPrecision: Double?

    @Option(name: .long, help: "Most optimiser iterations.")
    var maxIterations: Int = 1000

    @Option(name: .long, help: ArgumentHelp("uniform, or balanced for imbalanced labels.", valueName: "weighting"))
    var classWeights: String = "uniform"

    @Flag(name: .long, help: "List the non-image files passed over.")
    var verbose = false

    @Option(name: .shortAndLong, help: ArgumentHelp("The model file to write (default: the dataset's name, e.g. Drawings.wbmodel).", valueName: "file"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Also write the full report as JSON.", valueName: "file"))
    var report: String?

    @Flag(help: "Print the full report as JSON instead of tables.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Write the HTML report here (default: beside the model, NAME.html; none for a "
                                            + "model written to a device).", valueName: "file"))
    var html: String?

    @Flag(name: .long, help: "Do not write the HTML report.")
    var noHtml = false

    @OptionGroup var compute: ComputeOptions
    @OptionGroup var backboneOptions: BackboneOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup var skipping: StrictOption

    /// Stronger regularisation than this leaves every weight at zero; it is a typo, not a setting.
    static let maximumL2 = 1e9
    /// L-BFGS converges in hundreds of iterations; more than this is a typo.
    static let maximumIterations = 1_000_000

    func validate() throws {
        if let validationFraction, !(0..<1).contains(validationFraction) {
            throw ValidationError("--validation-fraction must be at least 0 and below 1, got \(validationFraction)")
        }
        if let targetPrecision, !(targetPrecision > 0 && targetPrecision <= 1) {
            throw ValidationError("--target-precision must be above 0 and at most 1, got \(targetPrecision)")
        }
        if targetPrecision != nil, validationFraction == 0 {
            throw ValidationError("--target-precision needs held-out images: drop --validation-fraction 0")
        }
        if let l2, !(l2 >= 0 && l2 <= Self.maximumL2) {
            throw ValidationError("--l2 must be a number from 0 to \(Self.maximumL2), got \(l2)")
        }
        guard (1...Self.maximumIterations).contains(maxIterations) else {
            throw ValidationError("--max-iterations must be between 1 and \(Self.maximumIterations), got \(maxIterations)")
        }
        guard ClassWeighting(rawValue: classWeights) != nil else { throw ValidationError("--class-weights must be uniform or balanced") }
        if html != nil && noHtml { throw ValidationError("--html and --no-html exclude each other") }
    }

    func run() throws {
        try Console.run {
            var request = TrainingRequest(datasetPath: dataset)
            request.testingPath = test
            request.validationPath = validation
            request.validationFraction = validationFraction
            request.seed = seed
            request.l2 = l2
            request.targetPrecision = targetPrecision
            request.maxIterations = maxIterations
            request.classWeighting = ClassWeighting(rawValue: classWeights)!
            request.strict = skipping.strict
            let modelPath = output ?? defaultModelPath()
            try checkWritable(modelPath)
            if let report { try checkWritable(report) }
            // A model written through a device or FIFO (`-o /dev/null`) has no folder of its own to put a page in.
            let besideModel = OutputFile.writesThrough(path: modelPath) ? nil : (modelPath as NSString).deletingPathExtension + ".html"
            let htmlPath = noHtml ? nil : html ?? besideModel
            if let htmlPath { try checkWritable(htmlPath) }

            let extractor = compute.extractor(backbone: try backboneOptions.load(), usesCache: !cache.noCache)
            var progress: ProgressBar?
            let result = try TrainingWorkflow.run(request, extractor: extractor) { event in
                switch event {
                case .scanned(let counts, let skipped):
                    // The table comes once training knows what was held out; for now, what was found.
                    let training = counts.reduce(0) { $0 + $1.training }, testing = counts.reduce(0) { $0 + $1.testing }
                    Console.warn("found \(counts.count) labels: \(training) training, \(testing) testing images")
                    if verbose { for file in skipped { Console.warn("skipped \(file)") } }
                case .warning(let line):
                    progress?.finish()
                    Console.warn("warning: \(line)")
                case .features(let done, let total):
                    if progress == nil { progress = ProgressBar(total: total, label: "features") }
                    progress?.update(completed: done)
                case .fitting:
                    progress?.finish()
                }
            }
            let trained = result.report
            if json {
                Console.output(try ReportRendering.json(trained))
            } else {
                Console.outputLine(ReportRendering.counts(trained.counts, validationTitle: ReportRendering.validationTitle(trained)))
                Console.outputLine(ReportRendering.accuracies(trained))
                for line in trained.diagnostics ?? [] { Console.outputLine("warning: \(line)") }
                if trained.diagnostics?.isEmpty == false { Console.outputLine() }
                Console.output(ReportRendering.selection(trained))
                Console.output(ReportRendering.calibration(trained))
                Console.output(ReportRendering.thresholds(trained))
                if let testing = trained.testingEvaluation {
                    Console.outputLine(ReportRendering.evaluation(testing, labels: trained.labels, title: "Testing"))
                } else if let validation = trained.validationEvaluation {
                    if let repeats = trained.selection?.repeats, repeats > 1 {
                        Console.outputLine("\n(validation counts are held-out predictions: each training image was held out \(repeats) times)")
                    }
                    Console.outputLine(ReportRendering.evaluation(validation, labels: trained.labels, title: "Validation"))
                }
                if !trained.unreadable.isEmpty { Console.outputLine("\(trained.unreadable.count) unreadable images skipped") }
            }
            // The model first: a report never describes a model that was not written.
            try result.modelFile.write(path: modelPath)
            if let report { try AtomicFile.write(text: try ReportRendering.json(trained), to: report) }
            if let htmlPath {
                try ModelReports.write(try ModelReports.trainingPage(result, modelPath: modelPath, extractor: extractor), to: htmlPath)
            }
            Console.warn(String(format: "features %.1f s, head %.2f s (choosing l2 %.2f s), total %.1f s",
                                trained.timings?.features ?? 0, trained.timings?.training ?? 0,
                                trained.timings?.selection ?? 0, trained.timings?.total ?? 0))
            if let target = trained.thresholds?.targetPrecision, trained.thresholds?.chosen == nil {
                Console.warn("warning: no confidence threshold reaches precision \(ReportRendering.percent(target)) on the held-out images; none stored")
            }
            // With --json, stdout is the report alone, for machines; the paths still come last, on stderr.
            for line in (htmlPath.map { ["report written to \($0)"] } ?? []) + ["model written to \(modelPath)"] {
                if json { Console.warn(line) } else { Console.outputLine(line) }
            }
        }
    }

    /// `Name.wbmodel` in the working directory: the dataset folder's name (its parent's for "Training Data") with
    /// its first letter upper-cased, as a model is named after what it tells apart (datasets/drawings gives
    /// Drawings.wbmodel, the name the examples and the README use).
    private func defaultModelPath() -> String {
        var url = URL(fileURLWithPath: dataset).standardizedFileURL
        if ["training data", "train"].contains(url.lastPathComponent.lowercased()) { url.deleteLastPathComponent() }
        let name = url.lastPathComponent.isEmpty || url.lastPathComponent == "/" ? "model" : url.lastPathComponent
        return "\(name.prefix(1).uppercased())\(name.dropFirst()).wbmodel"
    }

    private func checkWritable(_ path: String) throws { try Console.checkWritable(path) }
}
