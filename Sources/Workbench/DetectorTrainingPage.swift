import DetectionAnnotations
import DetectorTraining
import Foundation
import Reports

extension DetectorTrainingWorkflow {
    /// What the training page shows beyond the scores, as the classifier's page does: a warning when nothing was
    /// learned, the loss and held-out mAP@0.5 per epoch, pictures and boxes per label in each split, the settings.
    static func trainingSection(
        _ result: DetectorTrainingResult, report: DetectorTrainingReport, training: DetectorTrainingRequest
    ) -> DetectorTrainingSection {
        var section = DetectorTrainingSection()
        let labels = result.detector.labels
        if result.learnedNothing {
            section.warnings.append(
                "Held-out mAP@0.5 was 0 at every epoch: on the \(Markup.count(result.heldOutImageCount, "held-out picture")) no box found an object, so nothing was learned that they can show, and the stored threshold (\(Markup.number(result.detector.threshold, decimals: 3))) means little. More annotated pictures, or more epochs, may help."
            )
        }
        func epoch(_ epoch: DetectorEpoch) -> DetectorTrainingSection.Epoch {
            .init(epoch: epoch.epoch, loss: epoch.loss, heldOutMeanAveragePrecision50: epoch.heldOutMeanAveragePrecision50)
        }
        section.epochs = result.epochs.map(epoch)
        section.chosenEpoch = result.chosenEpoch
        section.fineTuningEpochs = result.fineTuning?.epochs.map(epoch) ?? []

        let all = training.training.images + training.training.negatives
        let heldOut = result.heldOutPictures.map(\.evaluated.groundTruth)
        let every = split("all", all.map(\.objects), labels: labels)
        let held = split("held-out", heldOut, labels: labels)
        section.splits = [
            DetectorTrainingSection.Split(
                name: "training", pictures: every.pictures - held.pictures,
                picturesPerLabel: zip(every.picturesPerLabel, held.picturesPerLabel).map { $0 - $1 },
                boxesPerLabel: zip(every.boxesPerLabel, held.boxesPerLabel).map { $0 - $1 }),
            held,
        ]
        if let testing = training.testing {
            section.splits.append(split("testing", (testing.images + testing.negatives).map(\.objects), labels: labels))
        }

        let settings = report.settings
        section.settings = [
            ("input side", "\(settings.inputSide) px"), ("head width", "\(settings.headWidth)"),
            ("random crops per picture", "\(settings.crops)"),
            ("held-out share", Markup.percent(settings.heldOutFraction, decimals: 0)),
            ("epochs", "\(settings.epochs)"), ("batch size", "\(settings.batchSize)"),
            ("learning rate", "\(settings.learningRate)"), ("seed", "\(settings.seed)"),
            ("refit on every picture", result.refit.map { "\($0.epochs) epochs (\($0.length.phrase))" } ?? "none"),
            ("score threshold stored", Markup.number(result.detector.threshold, decimals: 3)),
        ]
        if let fineTuning = result.fineTuning?.settings {
            section.settings += [
                ("fine-tuning epochs", "\(fineTuning.epochs)"),
                ("fine-tuning learning rates", "head \(fineTuning.headLearningRate), blocks \(fineTuning.backboneLearningRate)"),
                ("fine-tuning weight decay", "\(fineTuning.weightDecay)"),
                ("fine-tuning warm-up share", Markup.percent(fineTuning.warmupFraction, decimals: 0)),
            ]
        }
        return section
    }

    /// A split's pictures, and per label the pictures holding it and its boxes.
    private static func split(_ name: String, _ pictures: [[ObjectAnnotation]], labels: [String]) -> DetectorTrainingSection.Split {
        DetectorTrainingSection.Split(
            name: name, pictures: pictures.count,
            picturesPerLabel: labels.map { label in pictures.filter { $0.contains { $0.label == label } }.count },
            boxesPerLabel: labels.map { label in pictures.reduce(0) { $0 + $1.filter { $0.label == label }.count } })
    }
}
