/// How a model is used at test time: whether `classify`, `evaluate` and `label` average its answers over the
/// test-time views by default (`train --tta`), and whether those views may mirror the image (model format
/// version 5).
///
/// A model trained with `--no-flip` (digits, text: anything whose mirror image is something else) records
/// `mirrors: false`, so its views never flip, whoever asks for them. Stored as JSON with sorted keys under the
/// metadata key `test_time_augmentation`, for example `{"byDefault":true,"mirrors":true}`.
public struct TestTimeAugmentationRecord: Sendable, Equatable, Codable {
    /// Whether the views are averaged unless the user turns them off (`--no-tta`).
    public var byDefault: Bool
    /// Whether the views include mirrored ones; false for a model trained without flips.
    public var mirrors: Bool

    /// Creates a record.
    public init(byDefault: Bool, mirrors: Bool) {
        self.byDefault = byDefault
        self.mirrors = mirrors
    }

    /// What a file of format version 1 to 4 means: no test-time views by default, and mirrors unless its
    /// fine-tuning record lists augmentations without a horizontal flip (those versions stored nothing else that
    /// says whether the model saw mirrored images).
    public static func implied(byOlderFileWith fineTuning: FineTuningRecord?) -> TestTimeAugmentationRecord {
        let mirrors = fineTuning.map { $0.augmentations.isEmpty || $0.augmentations.contains("horizontal flip") } ?? true
        return TestTimeAugmentationRecord(byDefault: false, mirrors: mirrors)
    }
}
