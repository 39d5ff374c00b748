/// What fine-tuning changed in a model's backbone, stored beside the backbone tensors (model format version 3).
///
/// A fine-tuned model keeps the whole backbone under the pretrained names; the trained layers carry their trained
/// values with the batch norm as an identity carrier (conv weight = trained folded weight, bn weight 1, bn bias =
/// trained folded bias, running mean 0, running variance 1 − ε), every other tensor byte-identical to the base
/// backbone. This record says which tensors those are and how they were trained, so `inspect`, reports and
/// exports can tell a person; nothing computes with it. A frozen-backbone model has no record (`nil`).
///
/// Stored as JSON with sorted keys under the metadata key `fine_tuning`, for example
/// `{"augmentations":["horizontal flip"],"epochs":10,"firstTrainedBlock":13,"refits":3,"trainedTensorNames":[...]}`.
public struct FineTuningRecord: Sendable, Equatable, Codable {
    /// Index `N` of the first trained MBConv block (`_blocks.N`); every block from it to the last trained too.
    /// Equal to the backbone's block count (16 for EfficientNet-Lite0) when only the final 1×1 convolution trained.
    public var firstTrainedBlock: Int
    /// The backbone tensors (original names, without the file's "backbone." prefix) that hold trained values,
    /// sorted by name.
    public var trainedTensorNames: [String]
    /// Epochs of fine-tuning the kept model saw (the best epoch by held-out accuracy, counted from 1).
    public var epochs: Int
    /// The augmentations applied during fine-tuning, one human-readable description each (for example
    /// "horizontal flip", "rotation ±10°"); empty when none was used.
    public var augmentations: [String]
    /// How many refits on all training images were averaged into the trained values (1: a single refit); nil when
    /// the model is one run's chosen epoch (a validation folder chose it) and in files written before it was recorded.
    public var refits: Int?

    /// Creates a record; the names are kept sorted so that equal content gives equal bytes.
    public init(firstTrainedBlock: Int, trainedTensorNames: [String], epochs: Int, augmentations: [String], refits: Int? = nil) {
        self.firstTrainedBlock = firstTrainedBlock
        self.trainedTensorNames = trainedTensorNames.sorted()
        self.epochs = epochs
        self.augmentations = augmentations
        self.refits = refits
    }

    /// The first rule this record breaks for a model with these backbone tensor names, or nil.
    /// `ModelFile.read` and `write` both apply it.
    public func problem(backboneTensorNames: Set<String>) -> String? {
        if firstTrainedBlock < 0 { return "fine_tuning: firstTrainedBlock \(firstTrainedBlock) is negative" }
        if epochs < 1 { return "fine_tuning: epochs \(epochs) is not a positive number" }
        if trainedTensorNames.isEmpty { return "fine_tuning: trainedTensorNames is empty" }
        var seen = Set<String>()
        for name in trainedTensorNames where !seen.insert(name).inserted {
            return "fine_tuning: trained tensor '\(name)' is listed more than once"
        }
        if let missing = trainedTensorNames.first(where: { !backboneTensorNames.contains($0) }) {
            return "fine_tuning: trained tensor '\(missing)' is not a backbone tensor of this model"
        }
        if augmentations.contains(where: { $0.isEmpty }) { return "fine_tuning: an augmentation is the empty string" }
        if let refits, refits < 1 { return "fine_tuning: refits \(refits) is not a positive number" }
        return nil
    }

    /// One line for people: "blocks 13–15 and the final 1×1 convolution, 10 epochs, augmentations: …".
    public func summary(blockCount: Int) -> String {
        let blocks: String
        if firstTrainedBlock >= blockCount {
            blocks = "the final 1×1 convolution"
        } else if firstTrainedBlock == blockCount - 1 {
            blocks = "block \(firstTrainedBlock) and the final 1×1 convolution"
        } else {
            blocks = "blocks \(firstTrainedBlock)–\(blockCount - 1) and the final 1×1 convolution"
        }
        var epochText = epochs == 1 ? "1 epoch" : "\(epochs) epochs"
        if let refits, refits > 1 { epochText += " (the average of \(refits) refits)" }
        let augmentationText = augmentations.isEmpty ? "no augmentation" : "augmentations: " + augmentations.joined(separator: ", ")
        return "\(blocks), \(epochText), \(augmentationText)"
    }
}

extension ModelFile {
    /// What the backbone is, for people: "pretrained ImageNet weights (frozen)", or "fine-tuned from block 13:
    /// blocks 13–15 and the final 1×1 convolution, 10 epochs, …" from `fineTuning`.
    ///
    /// - Parameter blockCount: the backbone's number of MBConv blocks (16 for EfficientNet-Lite0).
    public func backboneTrainingDescription(blockCount: Int) -> String {
        guard let fineTuning else { return "pretrained ImageNet weights (frozen)" }
        return "fine-tuned from block \(fineTuning.firstTrainedBlock): " + fineTuning.summary(blockCount: blockCount)
    }
}
