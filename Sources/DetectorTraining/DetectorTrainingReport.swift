/// A detector training run's report: `train --json` prints it, `--report` writes it, the model file embeds it
/// (without the timings, so equal inputs give equal bytes).
public struct DetectorTrainingReport: Sendable, Equatable, Codable {
    /// What the run was given, as numbers.
    public struct Settings: Sendable, Equatable, Codable {
        public var inputSide: Int
        public var headWidth: Int
        public var crops: Int
        public var heldOutFraction: Double
        public var epochs: Int
        public var batchSize: Int
        public var learningRate: Double
        public var seed: UInt64
    }

    /// Seconds per phase (left out of the model file's copy).
    public struct Timings: Sendable, Equatable, Codable {
        public var maps: Double
        public var training: Double
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
    /// Seconds per phase; nil in the model file.
    public var timings: Timings?

    /// The report of `result` trained as `request` asked.
    public init(_ result: DetectorTrainingResult, request: DetectorTrainingRequest) {
        labels = result.detector.labels
        trainingImages = result.trainingImageCount
        heldOutImages = result.heldOutImageCount
        settings = Settings(inputSide: request.inputSide, headWidth: request.headWidth, crops: request.crops,
                            heldOutFraction: request.heldOutFraction, epochs: request.schedule.epochs,
                            batchSize: request.schedule.batchSize, learningRate: request.schedule.learningRate,
                            seed: request.schedule.seed)
        chosenEpoch = result.chosenEpoch
        epochs = result.epochs
        threshold = result.detector.threshold
        heldOut = result.heldOut
        testing = result.testing
        timings = Timings(maps: result.mapSeconds, training: result.trainingSeconds)
    }
}
