import ClusterJobs
import Labeling

/// What turns a movie's frames into markers: sampling and marker policy, the settings every task of a sharded run
/// shares. The defaults are `workbench label`'s.
public struct LabelSettings: Sendable, Equatable {
    /// Seconds between sampled frames.
    public var every: Double = 1
    /// Frame rate of frame folders, when not `every` seconds apart.
    public var framesPerSecond: Double?
    /// Below this confidence the marker is the fallback label; nil is the model's own threshold
    /// (`--min-confidence auto`, from `train --target-precision`).
    public var minimumConfidence: Double? = 0
    /// The fallback label; nil is `Unsure`.
    public var fallbackLabel: String?
    /// Majority-vote window in seconds.
    public var smoothing: Int = 1
    /// Markers only where the label changes.
    public var changesOnly = false
    /// Test-time augmentation: true averages each frame's answers over the model's test-time views (`--tta`),
    /// false never does (`--no-tta`), nil does what the model's record says.
    public var testTimeAugmentation: Bool?

    /// The defaults.
    public init() {}

    /// The sampling for `LabelingWorkflow`.
    public var sampling: MovieLabeling.Sampling { .init(every: every, framesPerSecond: framesPerSecond) }

    /// The minimum confidence in force for `classifier`: the one set, or the model's own threshold.
    func minimumConfidence(for classifier: Classifier) throws(WorkbenchError) -> Double {
        if let minimumConfidence { return minimumConfidence }
        guard let threshold = classifier.confidenceThreshold else {
            throw WorkbenchError(
                path: classifier.path,
                reason: "the model has no confidence threshold to take as the minimum confidence: train it with a target precision")
        }
        return threshold
    }

    /// The marker policy for `classifier`'s verdicts.
    func markerPolicy(for classifier: Classifier) throws(WorkbenchError) -> MarkerPolicy {
        MarkerPolicy(
            minimumConfidence: Float(try minimumConfidence(for: classifier)),
            fallbackLabel: fallbackLabel ?? Self.defaultFallback, smoothing: smoothing, changesOnly: changesOnly)
    }

    /// The label of frames below the minimum confidence when none is given.
    public static let defaultFallback = "Unsure"

    /// These settings as a sharded task's `workbench label` options (`ClusterJobs.WorkbenchTaskCommand`).
    public var taskOptions: WorkbenchTaskCommand.LabelOptions {
        .init(
            every: every, framesPerSecond: framesPerSecond, minimumConfidence: minimumConfidence,
            fallbackLabel: fallbackLabel, smoothing: smoothing, changesOnly: changesOnly,
            testTimeAugmentation: testTimeAugmentation)
    }

    /// Every setting, defaults included, as one line for a results manifest.
    var summary: String {
        "every \(every) s, fps \(framesPerSecond.map { "\($0)" } ?? "-"), min-confidence \(minimumConfidence.map { "\($0)" } ?? "auto"), "
            + "fallback \(fallbackLabel ?? Self.defaultFallback), smooth \(smoothing), changes-only \(changesOnly ? "yes" : "no")"
            + (testTimeAugmentation.map { ", tta \($0 ? "yes" : "no")" } ?? "")
    }
}
