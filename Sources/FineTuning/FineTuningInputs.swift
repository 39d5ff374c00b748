/// Where the fine-tuning loop gets its images: the network's inputs for some samples at some epoch. The loop knows
/// nothing of files, decoding or augmentation; a source that augments gives different inputs each epoch.
///
/// Samples are the source's own indices (the loop is handed which of them train and which are held out).
/// `networkInputs` may be called from several threads at once, for different samples.
public protocol FineTuningInputSource: Sendable {
    /// Whether the training inputs change from epoch to epoch (augmentation). When false, the loop runs the
    /// frozen layers once per image and reuses their outputs every epoch.
    var variesByEpoch: Bool { get }

    /// A short description of what is done to the training inputs, for reports ("none", "flip, crop 0.08–1").
    var augmentationSummary: String { get }

    /// The network inputs of `samples`, `[samples.count, 224, 224, 3]` NHWC, normalised as
    /// `Models.Preprocessing` does. `epoch` is the training epoch (from 0) for training inputs, nil for
    /// held-out inputs, which are never augmented.
    func networkInputs(for samples: [Int], epoch: Int?) throws(FineTuningError) -> [Float]
}
