import TensorCore
import Video

/// The classifier's verdict on one frame.
public struct LabeledFrame: Sendable, Equatable {
    /// The frame's index in its source.
    public let index: Int
    /// Time of the frame in seconds.
    public let second: Double
    /// The most probable label (the first one on equal probabilities).
    public let label: String
    /// That label's probability.
    public let confidence: Float
    /// One probability per label, in `MovieLabeler.labels` order.
    public let probabilities: [Float]

    /// Makes a labeled frame.
    public init(index: Int, second: Double, label: String, confidence: Float, probabilities: [Float]) {
        self.index = index
        self.second = second
        self.label = label
        self.confidence = confidence
        self.probabilities = probabilities
    }
}

/// How far labeling has got.
public struct LabelingProgress: Sendable, Equatable {
    /// Frames classified so far.
    public let framesDone: Int
    /// Frames expected in total, when the source can tell (an estimate for video).
    public let totalFrames: Int?
}

/// Runs a classifier over every frame of a source, a batch at a time.
///
/// The classifier is a closure so Labeling does not depend on the network: Workbench passes one that runs
/// EfficientNet-Lite0 features and the logistic-regression head; tests pass a fake.
public struct MovieLabeler {
    /// The label names, in the order of the classifier's probabilities.
    public let labels: [String]
    /// Frames per call to the classifier (batching amortises the network's per-call cost).
    public let batchSize: Int

    /// Makes a labeler. `labels` must not be empty and `batchSize` must be positive (programmer errors).
    public init(labels: [String], batchSize: Int = 8) {
        precondition(!labels.isEmpty, "MovieLabeler needs at least one label")
        precondition(batchSize > 0, "batchSize must be positive")
        self.labels = labels
        self.batchSize = batchSize
    }

    /// Classifies every frame `source` yields, in order, and closes the source (also on failure).
    ///
    /// `classify` receives up to `batchSize` frames and returns one probability row per frame, each with one
    /// value per label. Errors: the source's `LabelingError`s; `.classifierMismatch` when the rows do not fit;
    /// `.noFrames` when the source yields nothing; anything `classify` throws, unchanged.
    public func label(
        _ source: some FrameSource, sourcePath: String,
        classify: ([Frame]) throws -> [[Float]],
        progress: ((LabelingProgress) -> Void)? = nil
    ) throws -> [LabeledFrame] {
        defer { source.close() }
        var results: [LabeledFrame] = []
        var batch: [Frame] = []
        batch.reserveCapacity(batchSize)

        func flush() throws {
            guard !batch.isEmpty else { return }
            let rows = try classify(batch)
            guard rows.count == batch.count else {
                throw LabelingError(
                    .classifierMismatch, path: sourcePath,
                    reason: "classifier returned \(rows.count) results for \(batch.count) frames")
            }
            for (frame, row) in zip(batch, rows) {
                guard row.count == labels.count else {
                    throw LabelingError(
                        .classifierMismatch, path: sourcePath,
                        reason: "classifier returned \(row.count) probabilities for \(labels.count) labels")
                }
                let best = row.indexOfMaximum
                results.append(
                    LabeledFrame(
                        index: frame.index, second: frame.second, label: labels[best],
                        confidence: row[best], probabilities: row))
            }
            batch.removeAll(keepingCapacity: true)
            let expected = source.expectedFrameCount.map { max($0, results.count) }
            progress?(LabelingProgress(framesDone: results.count, totalFrames: expected))
        }

        while let frame = try source.nextFrame() {
            batch.append(frame)
            if batch.count == batchSize { try flush() }
        }
        try flush()
        guard !results.isEmpty else {
            throw LabelingError(.noFrames, path: sourcePath, reason: "no frames to label")
        }
        return results
    }
}
