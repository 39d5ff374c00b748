/// A detector training run's report: `train --json` prints it, `--report` writes it, the model file embeds it
/// (without the timings, so equal inputs give equal bytes).
public struct DetectorTrainingReport: Sendable, Equatable, Codable {
    /// What the run was given, as numbers.
    public struct Settings: Sendable, Equatable, Codable {
        /// Side of the square network input.
        public var inputSide: Int
        /// The head's width C.
        public var headWidth: Int
        /// Random crops per training picture besides the whole picture and its mirror.
        public var crops: Int
        /// Share of the annotated pictures held out.
        public var heldOutFraction: Double
        /// Epochs trained (the chosen one may be earlier).
        public var epochs: Int
        /// Pictures per step.
        public var batchSize: Int
        /// Adam's peak learning rate.
        public var learningRate: Double
        /// The seed of the split, the head's start, the order and the views.
        public var seed: UInt64
    }

    /// Seconds per phase (left out of the model file's copy).
    public struct Timings: Sendable, Equatable, Codable {
        /// Seconds to read or compute every view's maps.
        public var maps: Double
        /// Seconds to train the head and score the held-out pictures each epoch.
        public var training: Double
        /// Seconds of fine-tuning (its epochs, their held-out scoring, the kept backbone's held-out maps), when run.
        public var fineTuning: Double?
        /// Seconds of each fine-tuning epoch's training, when run.
        public var fineTuningEpochs: [Double]?
        /// Seconds of the refit on every training picture, when run.
        public var refit: Double?
    }

    /// The refit on every training picture (`DetectorRefit` without its timing).
    public struct Refit: Sendable, Equatable, Codable {
        /// "chosen" (the held-out pictures' epoch count) or "all" (the schedule's).
        public var length: DetectorRefitLength
        /// Pictures trained on: the training and the held-out ones.
        public var pictures: Int
        /// Epochs trained.
        public var epochs: Int
        /// Each epoch's mean training loss.
        public var losses: [Double]
    }

    /// What `--fine-tune` did (`DetectorFineTuningOutcome` without its timings).
    public struct FineTuning: Sendable, Equatable, Codable {
        /// The first MBConv block trained (`_blocks.N`); every later one trained too. The 1×1 head convolution
        /// a classifier pools is not part of a detector and keeps its pretrained values.
        public var firstTrainedBlock: Int
        /// The settings it ran with.
        public var settings: DetectorFineTuningSettings
        /// The frozen head's held-out mAP@0.5 (epoch 0).
        public var frozenHeldOutMeanAveragePrecision50: Double
        /// Every fine-tuning epoch's loss and held-out mAP@0.5.
        public var epochs: [DetectorEpoch]
        /// The kept epoch, 0 when no epoch beat the frozen head on the held-out pictures (the frozen model is kept).
        public var chosenEpoch: Int
        /// The backbone tensors holding fine-tuned values (model file names without `backbone.`), sorted; empty
        /// when the frozen model was kept.
        public var trainedTensorNames: [String]
    }

    /// Always "detector": tells this report from a classifier's.
    public var kind = "detector"
    /// Labels in heat-map order.
    public var labels: [String]
    /// Pictures trained on and held out.
    public var trainingImages: Int, heldOutImages: Int
    /// The settings.
    public var settings: Settings
    /// The epoch whose head was kept (best held-out mAP@0.5).
    public var chosenEpoch: Int
    /// Every epoch's loss and held-out mAP@0.5.
    public var epochs: [DetectorEpoch]
    /// The score threshold of best F1 on the held-out pictures.
    public var threshold: Double
    /// Held-out scores (where epoch and threshold were chosen).
    public var heldOut: DetectorScores
    /// Testing scores, when a testing set was given.
    public var testing: DetectorScores?
    /// What fine-tuning did, with `--fine-tune`.
    public var fineTuning: FineTuning?
    /// The refit, with `--refit chosen|all`: the stored head is the refit's; `heldOut` is the chosen epoch's, before it.
    public var refit: Refit?
    /// Seconds per phase; nil in the model file.
    public var timings: Timings?

    /// The copy the model file embeds: without the timings, so equal inputs give equal bytes, and without the
    /// fine-tuning section when fine-tuning kept the frozen model, so that model's file is the plain run's, byte
    /// for byte (`train --json` and `--report` still say what fine-tuning tried).
    public var modelFileCopy: DetectorTrainingReport {
        var copy = self
        copy.timings = nil
        if copy.fineTuning?.chosenEpoch == 0 { copy.fineTuning = nil }
        return copy
    }

    /// The report of `result` trained as `request` asked.
    public init(_ result: DetectorTrainingResult, request: DetectorTrainingRequest) {
        labels = result.detector.labels
        trainingImages = result.trainingImageCount
        heldOutImages = result.heldOutImageCount
        settings = Settings(
            inputSide: request.inputSide, headWidth: request.headWidth, crops: request.crops,
            heldOutFraction: request.heldOutFraction, epochs: request.schedule.epochs,
            batchSize: request.schedule.batchSize, learningRate: request.schedule.learningRate,
            seed: request.schedule.seed)
        chosenEpoch = result.chosenEpoch
        epochs = result.epochs
        threshold = result.detector.threshold
        heldOut = result.heldOut
        testing = result.testing
        timings = Timings(
            maps: result.mapSeconds, training: result.trainingSeconds, fineTuning: result.fineTuning?.seconds,
            fineTuningEpochs: result.fineTuning?.epochSeconds, refit: result.refit?.seconds)
        refit = result.refit.map { Refit(length: $0.length, pictures: $0.pictures, epochs: $0.epochs, losses: $0.losses) }
        fineTuning = result.fineTuning.map { outcome in
            FineTuning(
                firstTrainedBlock: DetectorBackboneTop.firstBlock, settings: outcome.settings,
                frozenHeldOutMeanAveragePrecision50: outcome.frozenHeldOutMeanAveragePrecision50, epochs: outcome.epochs,
                chosenEpoch: outcome.chosenEpoch, trainedTensorNames: outcome.trainedTensorNames)
        }
    }
}
