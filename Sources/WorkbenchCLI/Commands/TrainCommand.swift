import ArgumentParser
import Foundation
import Workbench

/// `--refit`'s values: the library's refit lengths, and none.
enum RefitOption: String, ExpressibleByArgument, CaseIterable {
    case all, chosen
    case off = "none"

    /// The library's setting: nil for none.
    var length: DetectorRefitLength? {
        switch self {
        case .all: .allEpochs
        case .chosen: .chosenEpoch
        case .off: nil
        }
    }
}

struct TrainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train",
        abstract: "Train a classifier from folders of images, one subfolder per label, or a detector from Create ML annotations.",
        discussion: """
            DATASET holds "Training Data/" and "Testing Data/" (Create ML's layout), or train/, val/ and test/, or \
            is itself a folder of label subfolders. The L2 strength is chosen on held-out predictions \
            (cross-validation, or the validation folder or --validation-fraction share), then the model is fitted on \
            all training images and calibrated. The model is written to -o, by default to the dataset folder's name \
            with its first letter upper-cased, in the working directory (datasets/drawings gives Drawings.wbmodel).

            Examples:
              workbench train datasets/drawings
              workbench train "Training Data" --test "Testing Data" -o Drawings.wbmodel
              workbench train datasets/drawings --l2 10 --class-weights balanced
              workbench train datasets/drawings --target-precision 0.95
              workbench train datasets/drawings --report report.json --json
              workbench train datasets/drawings --exclude findings.json
              workbench train datasets/drawings --html report.html
              workbench train datasets/drawings --augment 2 --no-flip
              workbench train datasets/drawings --augment 1 --augmentations crop,rotate
              workbench train datasets/drawings -o Fine.wbmodel --fine-tune --epochs 2
              workbench train datasets/drawings -o Averaged.wbmodel --tta
              workbench train datasets/drawings -o Auto.wbmodel --fine-tune-auto
              workbench train shapes -o Shapes.wbmodel
              workbench train shapes/annotations.json --epochs 10 --json
              workbench train shapes -o Tuned.wbmodel --fine-tune --fine-tune-epochs 5

            --augment N also fits the head on N augmented views of every training image (--augmentations picks them, \
            --no-flip drops the mirror). --fine-tune also trains the top --fine-tune-blocks MBConv blocks with the \
            head; the epoch and the decision are made on held-out images (3 stratified folds below 1,000 training \
            images, else a 20 % share or the validation folder). Rule: the epoch with the best held-out accuracy \
            over all folds; fine-tuning is kept only when, at that epoch, it gets at least 2 more held-out images \
            right than the frozen head over all folds and its mean gain exceeds the standard error of the folds' \
            gains; otherwise the frozen model is kept and the run says why (--keep-fine-tuned keeps it anyway). The \
            kept model is refitted on all training images, --refits N times, and their weights averaged. \
            --fine-tune-auto fine-tunes only when the frozen head's cross-validated accuracy is below \
            \(AutomaticFineTuning.roomBelowPercent) % and the estimated time is within \
            \(AutomaticFineTuning.budgetMinutes) minutes. --tta stores test-time augmentation as the model's default.

            A detector is trained instead when DATASET is an object-detection dataset: a folder with Create ML's \
            annotations.json (or with "Training Data/" and "Testing Data/" that have one each), or an annotations \
            file itself (detect --json's output). --crops, --input-side, --refit and --fine-tune-epochs are for \
            detectors. The examples' shapes/ is such a folder (.venv/bin/python3 \
            scripts/bench/make-detector-bench.py shapes 300 makes one).

            Docs: docs/train.md; detectors: docs/train-detector.md
            """)

    @Argument(help: ArgumentHelp("The dataset folder.", valueName: "dataset"))
    var dataset: String

    @Option(name: .long, help: ArgumentHelp("A testing folder (label subfolders).", valueName: "folder"))
    var test: String?

    @Option(name: .long, help: ArgumentHelp("A validation folder (label subfolders).", valueName: "folder"))
    var validation: String?

    @Option(
        name: .long,
        help:
            "Hold out this share of the training images instead of cross-validating (0 holds out nothing: no choice of L2, no calibration). Only labels with at least 5 training images give some; a share that would hold out none is refused."
    )
    var validationFraction: Double?

    @Option(name: .long, help: "Seed of the folds and held-out split (a detector's too, and of its start, order and views).")
    var seed: UInt64 = 42

    @Option(name: .long, help: "L2 regularisation strength (default: chosen on held-out predictions).")
    var l2: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Store the lowest confidence threshold whose held-out answers are right this share of the time (for classify --abstain, label --min-confidence auto).",
            valueName: "p"))
    var targetPrecision: Double?

    @Option(name: .long, help: "Most optimiser iterations.")
    var maxIterations: Int = 1000

    @Option(name: .long, help: ArgumentHelp("uniform, or balanced for imbalanced labels.", valueName: "weighting"))
    var classWeights: String = "uniform"

    @Flag(name: .long, help: "Also fine-tune the top of the network (see below).")
    var fineTune = false

    @Flag(name: .long, help: "Fine-tune only when the frozen head leaves room and it fits \(AutomaticFineTuning.budgetMinutes) minutes (see below).")
    var fineTuneAuto = false

    @Option(
        name: .long,
        help: ArgumentHelp("With --fine-tune: how many of the top MBConv blocks train, 1 to 16 (default 8: the last three stages).", valueName: "n"))
    var fineTuneBlocks: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --fine-tune: passes over the training images (default 10); for a detector: epochs of its head (default 30).", valueName: "n"))
    var epochs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp("With --fine-tune: images per step (default 32); for a detector: pictures per step (default 16).", valueName: "n"))
    var batchSize: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --fine-tune: the peak learning rate of head and backbone (default 0.0001); for a detector: Adam's peak rate (default 0.002).",
            valueName: "rate"))
    var learningRate: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --fine-tune: the backbone's own peak learning rate, e.g. below the head's (default: --learning-rate's).", valueName: "rate"))
    var backboneLearningRate: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --fine-tune: keep this share of what fine-tuning changed, from above 0 to 1 (default 1; 0.5 is WiSE-FT's halfway mix with the start).",
            valueName: "w"))
    var fineTunedWeight: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --fine-tune: after the folds choose the epoch, refit this many times on all training images, each with its own seed, and keep the average of their weights (a model soup; default \(FineTuningSettings().refits), at most \(FineTuningSettings.refitRange.upperBound); each gets --threads / n threads; not with a validation folder, --validation or the dataset's val/, where there is no refit).",
            valueName: "n"))
    var refits: Int?

    @Flag(name: .long, help: "With --fine-tune: keep the best fine-tuned epoch even when it does not beat the frozen head on the held-out images.")
    var keepFineTuned = false

    @Flag(name: .long, help: "List the non-image files passed over.")
    var verbose = false

    @Option(
        name: .shortAndLong, help: ArgumentHelp("The model file to write (default: the dataset's name, e.g. Drawings.wbmodel).", valueName: "file"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Also write the full report as JSON.", valueName: "file"))
    var report: String?

    @Flag(help: "Print the full report as JSON instead of tables.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Leave out the pictures this file lists: doctor's JSON (its findings' files; of a copy all but the first) or one path a line.",
            valueName: "file"))
    var exclude: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write the HTML report here (default: beside the model, NAME.html; none for a "
                + "model written to a device).", valueName: "file"))
    var html: String?

    @Flag(name: .long, help: "Do not write the HTML report.")
    var noHtml = false

    @Option(
        name: .long,
        help: ArgumentHelp("Detector: random crops of each training picture besides the whole picture and its mirror (default 2).", valueName: "n"))
    var crops: Int?

    @Option(name: .long, help: ArgumentHelp("Detector with --fine-tune: epochs of fine-tuning after the head's (default 10).", valueName: "n"))
    var fineTuneEpochs: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Detector: the side of the square network input, a multiple of \(DetectorInputSide.multiple) (default \(DetectionFeatureExtractor.defaultInputSide)).",
            valueName: "pixels"))
    var inputSide: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Detector: after the held-out pictures choose the threshold, train a new head on all training pictures for --epochs (all, the default), for the epoch they chose (chosen), or keep the chosen epoch's head (none); with --fine-tune only none may be given, and the refit runs only when fine-tuning keeps the frozen model.",
            valueName: "all|chosen|none"))
    var refit: RefitOption?

    @Flag(
        name: .long,
        help: "Store test-time augmentation as the model's default (classify, evaluate and label average over its views unless --no-tta).")
    var tta = false

    @OptionGroup var augmentationOptions: AugmentationOptions
    @OptionGroup var compute: ComputeOptions
    @OptionGroup var backboneOptions: BackboneOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup var skipping: StrictOption

    /// Stronger regularisation than this leaves every weight at zero; it is a typo, not a setting.
    static let maximumL2 = 1e9
    /// L-BFGS converges in hundreds of iterations; more than this is a typo.
    static let maximumIterations = 1_000_000

    func validate() throws {
        if DetectorTrainingWorkflow.isDetectionDataset(dataset) { return try validateDetector() }
        for (name, given) in [
            ("--crops", crops != nil), ("--input-side", inputSide != nil), ("--fine-tune-epochs", fineTuneEpochs != nil),
            ("--refit", refit != nil),
        ]
        // A DATASET that is not there is not called a classifier dataset here: the run names it missing.
        where given && FileManager.default.fileExists(atPath: dataset) {
            throw ValidationError("\(name) is for detectors: DATASET has no annotations.json")
        }
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
        if fineTune && fineTuneAuto { throw ValidationError("--fine-tune and --fine-tune-auto exclude each other") }
        if !fineTune && !fineTuneAuto {
            for (name, given) in [
                ("--fine-tune-blocks", fineTuneBlocks != nil), ("--epochs", epochs != nil),
                ("--batch-size", batchSize != nil), ("--learning-rate", learningRate != nil),
                ("--backbone-learning-rate", backboneLearningRate != nil), ("--fine-tuned-weight", fineTunedWeight != nil),
                ("--refits", refits != nil), ("--keep-fine-tuned", keepFineTuned),
            ] where given {
                throw ValidationError("\(name) needs --fine-tune")
            }
        }
        if augmentationOptions.augment > 0, try augmentationOptions.policy().isNone {
            throw ValidationError("--augmentations \(augmentationOptions.augmentations ?? "none") leaves no augmentation to make views with")
        }
        if augmentationOptions.augment == 0 && !fineTune && !fineTuneAuto && augmentationOptions.augmentations != nil {
            throw ValidationError("--augmentations chooses the views of --augment N, --fine-tune or --fine-tune-auto: add one")
        }
        if augmentationOptions.augment == 0 && !fineTune && !fineTuneAuto && !tta && augmentationOptions.noFlip {
            throw ValidationError("--no-flip chooses the views of --augment N, --fine-tune, --fine-tune-auto or --tta: add one")
        }
        if fineTune || fineTuneAuto, validationFraction == 0, validation == nil {
            throw ValidationError(
                "\(fineTuneAuto ? "--fine-tune-auto" : "--fine-tune") needs held-out images to choose its epoch: drop --validation-fraction 0 or give --validation"
            )
        }
        // The bounds are the library's (`FineTuningSettings.outOfRange`); only the option's name is this command's.
        if let problem = fineTuningSettings()?.outOfRange {
            throw ValidationError("\(optionName(problem.setting)) must be \(problem.requirement), got \(problem.value)")
        }
        if refits != nil && validation != nil {
            throw ValidationError(
                "--refits averages refits on all training images, and with --validation there is none (that run's chosen epoch is the model): drop one"
            )
        }
    }

    /// A detector takes the schedule's options and refuses the classifier's own.
    private func validateDetector() throws {
        let classifierOnly: [(String, Bool)] = [
            ("--validation", validation != nil), ("--validation-fraction", validationFraction != nil), ("--l2", l2 != nil),
            ("--target-precision", targetPrecision != nil), ("--class-weights", classWeights != "uniform"),
            ("--fine-tune-auto", fineTuneAuto), ("--fine-tune-blocks", fineTuneBlocks != nil), ("--fine-tuned-weight", fineTunedWeight != nil),
            ("--refits", refits != nil), ("--keep-fine-tuned", keepFineTuned), ("--tta", tta), ("--augment", augmentationOptions.augment > 0),
        ]
        for (name, given) in classifierOnly where given {
            throw ValidationError("\(name) is for classifiers; \(dataset) is an object-detection dataset")
        }
        if let epochs, !(1...1000).contains(epochs) { throw ValidationError("--epochs must be from 1 to 1000, got \(epochs)") }
        if let batchSize, !(1...1024).contains(batchSize) {
            throw ValidationError("--batch-size must be from 1 to 1024, got \(batchSize)")
        }
        if let learningRate, !(learningRate > 0 && learningRate <= 1) {
            throw ValidationError("--learning-rate must be above 0 and at most 1, got \(learningRate)")
        }
        if fineTune, let refit, refit != .off {
            throw ValidationError("--refit is for the frozen head: --fine-tune chooses its own epoch on the held-out pictures")
        }
        if !fineTune {
            for (name, given) in [("--fine-tune-epochs", fineTuneEpochs != nil), ("--backbone-learning-rate", backboneLearningRate != nil)]
            where given {
                throw ValidationError("\(name) needs --fine-tune")
            }
        }
        if let fineTuneEpochs, !(1...1000).contains(fineTuneEpochs) {
            throw ValidationError("--fine-tune-epochs must be from 1 to 1000, got \(fineTuneEpochs)")
        }
        if let backboneLearningRate, !(backboneLearningRate > 0 && backboneLearningRate <= 1) {
            throw ValidationError("--backbone-learning-rate must be above 0 and at most 1, got \(backboneLearningRate)")
        }
        if let crops, !(0...16).contains(crops) { throw ValidationError("--crops must be from 0 to 16, got \(crops)") }
        if let inputSide, !DetectorInputSide.isValid(inputSide) {
            throw ValidationError("--input-side must be \(DetectorInputSide.requirement), got \(inputSide)")
        }
    }

    /// The detector training these options ask for.
    private func detectorRequest() -> DetectorTrainingWorkflowRequest {
        var request = DetectorTrainingWorkflowRequest(datasetPath: dataset, testingPath: test)
        if let epochs { request.schedule.epochs = epochs }
        if let batchSize { request.schedule.batchSize = batchSize }
        if let learningRate { request.schedule.learningRate = learningRate }
        request.schedule.seed = seed
        request.schedule.threads = compute.threads ?? Parallel.coreCount
        if let crops { request.crops = crops }
        if let inputSide { request.inputSide = inputSide }
        // With --fine-tune the refit runs only when fine-tuning keeps the frozen model, which is then plain train's.
        if let refit { request.refit = refit.length }
        if fineTune {
            var settings = DetectorFineTuningSettings()
            if let fineTuneEpochs { settings.epochs = fineTuneEpochs }
            if let backboneLearningRate { settings.backboneLearningRate = backboneLearningRate }
            request.fineTuning = settings
        }
        request.modelPath = output
        request.reportPath = report
        request.page = noHtml ? .none : html.map { .at($0) } ?? .besideModel
        return request
    }

    /// The option that gives `setting` (`--learning-rate` gives both rates, `--backbone-learning-rate` the
    /// backbone's over it); the setting's own name for one no option sets.
    private func optionName(_ setting: FineTuningSettings.Setting) -> String {
        switch setting {
        case .trainedBlocks: "--fine-tune-blocks"
        case .epochs: "--epochs"
        case .batchSize: "--batch-size"
        case .headLearningRate: "--learning-rate"
        case .backboneLearningRate: backboneLearningRate != nil ? "--backbone-learning-rate" : "--learning-rate"
        case .fineTunedWeight: "--fine-tuned-weight"
        case .refits: "--refits"
        case .threads: "--threads"
        case .weightDecay, .labelSmoothing, .warmupFraction: setting.name
        }
    }

    /// The fine-tuning settings the options ask for; nil without --fine-tune or --fine-tune-auto.
    private func fineTuningSettings() -> FineTuningSettings? {
        guard fineTune || fineTuneAuto else { return nil }
        var settings = FineTuningSettings()
        if let fineTuneBlocks { settings.trainedBlocks = fineTuneBlocks }
        if let epochs { settings.epochs = epochs }
        if let batchSize { settings.batchSize = batchSize }
        if let learningRate { (settings.backboneLearningRate, settings.headLearningRate) = (learningRate, learningRate) }
        if let backboneLearningRate { settings.backboneLearningRate = backboneLearningRate }
        if let fineTunedWeight { settings.fineTunedWeight = fineTunedWeight }
        if let refits { settings.refits = refits }
        settings.seed = seed
        settings.requiresGain = !keepFineTuned
        settings.threads = compute.threads ?? Parallel.coreCount
        return settings
    }

    func run() throws {
        try Console.run {
            if DetectorTrainingWorkflow.isDetectionDataset(dataset) {
                let progress = DetectorTrainingProgress(verbose: verbose)
                var request = detectorRequest()
                request.backbone = backboneOptions.source
                request.features = compute.settings(usesCache: !cache.noCache)
                let outcome = try DetectorTrainingWorkflow.run(request, events: progress.render)
                return try DetectorTrainingRendering.render(outcome, json: json)
            }
            let progress = TrainingProgress(verbose: verbose)
            var request = TrainingWorkflowRequest(try request())
            request.output = TrainingOutput(model: output, report: report, page: noHtml ? .none : html.map { .at($0) } ?? .besideModel)
            request.backbone = backboneOptions.source
            request.features = compute.settings(usesCache: !cache.noCache)
            let outcome: TrainingWorkflowResult
            do {
                outcome = try TrainingWorkflow.run(request, events: progress.render)
            } catch let error as WorkbenchError where error.hint == .leaveRefitsAtDefault {
                throw WordedError(error: error, words: ", so --refits \(refits ?? FineTuningSettings().refits) would do nothing; drop it")
            }
            try TrainingRendering.render(outcome, json: json)
        }
    }

    /// The training run these options ask for.
    private func request() throws -> TrainingRequest {
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
        request.augmentedViews = augmentationOptions.augment
        request.augmentation = try augmentationOptions.policy()
        request.fineTuning = fineTuningSettings()
        request.exclusionList = exclude
        request.testTimeAugmentation = tta
        request.fineTunesAutomatically = fineTuneAuto
        return request
    }
}
