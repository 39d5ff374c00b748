import FileFormats
import LogisticHead

/// The held-out splits fine-tuning chooses its epoch and its decision on, as sample indices into the training
/// images followed by the validation folder's (the order `FineTunedModel` reads them in).
///
/// - A validation folder: one split, every training image trains and the folder is held out; no refit (the
///   folder is never trained on, so the chosen epoch of that run is the model).
/// - Else below `foldLimit` training images: `foldCount` stratified seeded folds (`StratifiedFolds`), each held
///   out once while the others train; then a refit on all training images.
/// - Else (or with `--validation-fraction`): one stratified seeded share held out (`StratifiedSplit`), 20 % by
///   default; then a refit on all training images.
struct FineTuningSplits {
    /// One split: who trains, who is held out.
    struct Split {
        var training: [Int]
        var heldOut: [Int]
    }

    var splits: [Split]
    /// Whether the kept model is trained again on every training image after choosing.
    var refits: Bool
    /// For the report: "3 stratified folds", "stratified 20 % held out", "validation folder".
    var method: String

    /// Below this many training images the decision is made on folds: one held-out share of a few dozen images
    /// is a coin toss (a photos sample lost 4 of 47 testing images on a 3-image held-out gain).
    static let foldLimit = 1000
    /// Folds below `foldLimit`: each trains on two thirds, and three runs plus the refit stay within the time budget.
    static let foldCount = 3

    /// The splits for `trainingLabels` (and `validationCount` validation-folder images when there is a folder).
    /// `fraction` is `--validation-fraction` when given. Throws when a split would hold out or train on nothing.
    static func make(trainingLabels: [Int], classCount: Int, validationCount: Int, hasValidationFolder: Bool,
                     fraction: Double?, seed: UInt64) throws(WorkbenchError) -> FineTuningSplits {
        let count = trainingLabels.count
        let result: FineTuningSplits
        if hasValidationFolder {
            result = FineTuningSplits(splits: [Split(training: Array(0..<count), heldOut: Array(count..<(count + validationCount)))],
                                      refits: false, method: "validation folder")
        } else if fraction == nil && count < foldLimit {
            let folds = StratifiedFolds.assign(labels: trainingLabels, classCount: classCount, folds: foldCount, seed: seed)
            result = FineTuningSplits(splits: (0..<foldCount).map { fold in
                Split(training: folds.indices.filter { folds[$0] != fold }, heldOut: folds.indices.filter { folds[$0] == fold })
            }, refits: true, method: "\(foldCount) stratified folds")
        } else {
            let share = fraction ?? FineTunedModel.defaultHeldOutFraction
            let split = StratifiedSplit.split(labels: trainingLabels, classCount: classCount, fraction: share, seed: seed)
            result = FineTuningSplits(splits: [Split(training: split.training, heldOut: split.validation)], refits: true,
                                      method: "stratified \(Int((share * 100).rounded())) % held out")
        }
        if result.splits.contains(where: { $0.heldOut.isEmpty || $0.training.isEmpty }) {
            throw WorkbenchError("fine-tuning chooses its epoch on held-out images: the \(result.method) of \(count) training "
                                 + "images leave a split with no image to hold out or to train on; give a validation folder or add images")
        }
        return result
    }
}
