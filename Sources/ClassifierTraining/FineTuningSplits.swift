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
    var method: Method
    /// Whether the kept model is trained again on every training image after choosing.
    var refits: Bool { method.refits }

    /// Below this many training images the decision is made on folds: one held-out share of a few dozen images
    /// is a coin toss (a photos sample lost 4 of 47 testing images on a 3-image held-out gain).
    static let foldLimit = 1000
    /// Folds below `foldLimit`: each trains on two thirds, and three runs plus the refit stay within the time budget.
    static let foldCount = 3

    /// Which kind of splits `make` deals, decided from the counts alone, so that an estimate made before the
    /// labels are dealt (`train --fine-tune-auto`'s) counts the same splits and refits as the run.
    enum Method: Equatable, CustomStringConvertible {
        case validationFolder
        case folds(Int)
        case heldOutShare(Double)

        init(trainingCount: Int, hasValidationFolder: Bool, fraction: Double?) {
            if hasValidationFolder {
                self = .validationFolder
            } else if fraction == nil && trainingCount < FineTuningSplits.foldLimit {
                self = .folds(FineTuningSplits.foldCount)
            } else {
                self = .heldOutShare(fraction ?? FineTunedModel.defaultHeldOutFraction)
            }
        }

        /// How many runs choose the epoch.
        var splitCount: Int {
            if case .folds(let count) = self { return count }
            return 1
        }

        /// Whether the kept model is trained again on every training image after choosing.
        var refits: Bool { self != .validationFolder }

        /// For the report: "3 stratified folds", "stratified 20 % held out", "validation folder".
        var description: String {
            switch self {
            case .validationFolder: return "validation folder"
            case .folds(let count): return "\(count) stratified folds"
            case .heldOutShare(let share): return "stratified \(Int((share * 100).rounded())) % held out"
            }
        }
    }

    /// The splits for `trainingLabels` (and `validationCount` validation-folder images when there is a folder).
    /// `fraction` is `--validation-fraction` when given. Throws when a split would hold out or train on nothing.
    static func make(
        trainingLabels: [Int], classCount: Int, validationCount: Int, hasValidationFolder: Bool,
        fraction: Double?, seed: UInt64
    ) throws(WorkbenchError) -> FineTuningSplits {
        let count = trainingLabels.count
        let method = Method(trainingCount: count, hasValidationFolder: hasValidationFolder, fraction: fraction)
        let splits: [Split]
        switch method {
        case .validationFolder:
            splits = [Split(training: Array(0..<count), heldOut: Array(count..<(count + validationCount)))]
        case .folds(let foldCount):
            let folds = StratifiedFolds.assign(labels: trainingLabels, classCount: classCount, folds: foldCount, seed: seed)
            splits = (0..<foldCount).map { fold in
                Split(training: folds.indices.filter { folds[$0] != fold }, heldOut: folds.indices.filter { folds[$0] == fold })
            }
        case .heldOutShare(let share):
            let split = StratifiedSplit.split(labels: trainingLabels, classCount: classCount, fraction: share, seed: seed)
            splits = [Split(training: split.training, heldOut: split.validation)]
        }
        let result = FineTuningSplits(splits: splits, method: method)
        if result.splits.contains(where: { $0.heldOut.isEmpty || $0.training.isEmpty }) {
            throw WorkbenchError(
                "fine-tuning chooses its epoch on held-out images: the \(result.method) of \(count) training "
                    + "images leave a split with no image to hold out or to train on; give a validation folder or add images")
        }
        return result
    }
}
