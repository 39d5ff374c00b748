/// Finds a video's phases from a classifier's per-frame probabilities: the scores of the chain (`PhaseScores`),
/// the best placement (`PhaseSegmentation.best`), then times in seconds and confidences (`PhaseTimeline`).
public enum PhaseFinder {
    /// The sampled frames of one video and what the classifier said about each.
    public struct Samples: Sendable {
        /// Each sampled frame's time in seconds, increasing.
        public var times: [Double]
        /// One probability per model label for each sampled frame.
        public var probabilities: [[Float]]
        /// Seconds between samples (what `--every` asked for).
        public var interval: Double
        /// The video's length in seconds, when known; else the last sample's time plus `interval`.
        public var videoDuration: Double?

        /// Samples from their parts.
        public init(times: [Double], probabilities: [[Float]], interval: Double, videoDuration: Double?) {
            self.times = times
            self.probabilities = probabilities
            self.interval = interval
            self.videoDuration = videoDuration
        }

        /// Where the video ends: its stated length when it is past the last sample, else one interval after it.
        public var end: Double {
            let last = times.last ?? 0
            if let videoDuration, videoDuration > last { return videoDuration }
            return last + interval
        }
    }

    /// The fewest samples a phase of `minimumLength` seconds holds when frames are `interval` seconds apart:
    /// ⌈minimumLength / interval⌉, at least 1 (a phase lasts from its first sample to the next phase's start, so
    /// n samples span n intervals). A thousandth of a sample of slack absorbs rounding (0.1 s at 0.02 s is 5).
    public static func minimumSamples(minimumLength: Double, interval: Double) -> Int {
        guard minimumLength > 0, interval > 0 else { return 1 }
        let samples = (minimumLength / interval - 0.001).rounded(.up)
        return samples.isFinite ? max(1, Int(min(samples, Double(Int32.max)))) : 1
    }

    /// The phases of `order` in `video`, from `samples` classified with a model of `labels` (at `modelPath`).
    ///
    /// Phase k starts at its first sample's time and ends where the next phase starts; the last one ends at the
    /// first "after" sample's time, or at the video's end when no sample comes after it. Confidence is the mean
    /// probability of the phase's label over its samples. Throws `.labelNotInModel` for an order label the model
    /// does not know (naming the model), `.videoTooShort` when the samples cannot hold every phase at
    /// `minimumLength` seconds (naming the video).
    public static func timeline(
        video: String, samples: Samples, labels: [String], order: [String], modelPath: String,
        minimumLength: Double
    ) throws(PhaseError) -> PhaseTimeline {
        let scores = try PhaseScores(probabilities: samples.probabilities, labels: labels, order: order, modelPath: modelPath)
        let minimum = minimumSamples(minimumLength: minimumLength, interval: samples.interval)
        guard let placement = PhaseSegmentation.best(scores, minimumSamples: minimum) else {
            throw PhaseError(
                .videoTooShort, path: video,
                reason: "too short for \(order.count) phases of at least \(format(minimumLength)) s each: "
                    + "\(samples.times.count) frame\(samples.times.count == 1 ? "" : "s") sampled every \(format(samples.interval)) s, "
                    + "\(order.count * minimum) needed (\(minimum) a phase)")
        }
        let phases = order.enumerated().map { index, label in
            let range = placement.samples(ofPhase: index)
            let column = labels.firstIndex(of: label) ?? 0
            let start = samples.times[range.lowerBound]
            let end = range.upperBound < samples.times.count ? samples.times[range.upperBound] : samples.end
            let mean = range.reduce(0.0) { $0 + Double(samples.probabilities[$1][column]) } / Double(range.count)
            return PhaseTimeline.Phase(label: label, start: start, end: end, confidence: mean)
        }
        return PhaseTimeline(video: video, order: order, phases: phases)
    }

    /// Up to six significant digits ("0.1", "0.04").
    static func format(_ value: Double) -> String {
        var text = String(value)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
