import ClassifierTraining
import Datasets
import FileFormats
import Foundation
import ImageCodecs
import Inference
import LogisticHead
import Models
import Pages
import TensorCore

/// The HTML pages of `train` and `evaluate`: the run's numbers from its report, pictures of the images it got
/// wrong (with where the evidence for the wrong answer lies) and of what it gets right, and the curves.
///
/// Built after the run from its report and predictions; only the images shown are read again (up to
/// `maximumGalleryImages` mistakes, `examplesPerLabel` per label, `maximumDuplicatePairs` pairs per warning).
public enum ModelReports {
    /// Mistakes that get a thumbnail; the rest are listed by name.
    public static let maximumGalleryImages = 200
    /// Correct images shown per label.
    public static let examplesPerLabel = 4
    /// Duplicate pairs shown per warning.
    public static let maximumDuplicatePairs = 8
    /// Thumbnail side in pixels (cards are about 150 CSS pixels wide; a little more keeps them sharp).
    public static let thumbnailSide = 160

    /// The page for a training run whose model is (or will be) at `modelPath`.
    public static func trainingPage(
        _ result: TrainingResult, modelPath: String,
        extractor: FeatureExtractor
    ) throws(WorkbenchError) -> String {
        let report = result.report
        let pictures = try PictureMaker(classifier: Classifier(modelFile: result.modelFile, path: modelPath), extractor: extractor)
        var page = ModelReportPage(
            title: "Training report: \(Markup.isolate(ModelReportPage.fileName(modelPath)))",
            subtitle: [
                "\(Markup.count(report.labels.count, "label")): \(report.labels.map(Markup.isolate).joined(separator: ", "))",
                "Model \(Markup.isolate(modelPath)), created \(result.modelFile.creationDate) by Workbench \(result.modelFile.workbenchVersion)",
            ])
        page.accuracy = accuracyRows(report)
        page.warnings = warnings(report.warnings, datasetWarnings: result.datasetWarnings, pictures: pictures)
        let gallery = gallerySplit(report)
        if let predictions = result.predictions[gallery.name] {
            page.details = details(
                name: gallery.name, evaluation: gallery.evaluation, predictions: predictions,
                labels: report.labels, pictures: pictures)
            page.reliability = reliability(
                predictions, classCount: report.labels.count, split: "\(gallery.name) images",
                notes: calibrationNotes(report.calibration))
        }
        page.thresholds =
            thresholds(report)
            ?? result.predictions[gallery.name].flatMap {
                thresholds($0, classCount: report.labels.count, split: "\(gallery.name) images")
            }
        page.counts = ModelReportPage.CountsTable(
            splits: ["training", "validation", "testing"],
            rows: report.counts.map { ($0.label, [$0.training, $0.validation, $0.testing]) })
        page.l2Curve = l2Curve(report)
        page.epochs =
            report.fineTuning?.epochs.map {
                .init(epoch: $0.epoch, trainingLoss: $0.loss, validationLoss: $0.heldOutLoss, validationAccuracy: $0.heldOutAccuracy)
            } ?? []
        page.settings = settingsRows(report) + [("backbone training", Classifier(modelFile: result.modelFile, path: modelPath).backboneDescription)]
        page.timings = timingRows(report.timings)
        page.unreadable = report.unreadable.map { ($0.path, $0.reason) }
        return page.html()
    }

    /// The page for `evaluate MODEL FOLDER`.
    public static func evaluationPage(
        _ result: EvaluationResult, folder: String, classifier: Classifier,
        extractor: FeatureExtractor
    ) throws(WorkbenchError) -> String {
        let evaluation = result.evaluation
        var page = ModelReportPage(
            title: "Evaluation: \(Markup.isolate(ModelReportPage.fileName(classifier.path))) on \(Markup.isolate(ModelReportPage.fileName(folder)))",
            subtitle: [
                "Model \(Markup.isolate(classifier.path)) (created \(classifier.modelFile.creationDate)), \(Markup.count(result.labels.count, "label")): \(result.labels.map(Markup.isolate).joined(separator: ", "))",
                "Images from "
                    + (result.isTestingSplit
                        ? "\(Markup.isolate(result.scoredFolder ?? folder)), the testing split of \(Markup.isolate(folder))"
                        : Markup.isolate(folder)),
            ])
        page.accuracy = [
            .init(
                split: "evaluated images", accuracy: evaluation.count > 0 ? evaluation.accuracy : nil,
                interval: evaluation.count > 0 ? range(WilsonInterval.interval(proportion: evaluation.accuracy, count: evaluation.count)) : nil,
                count: evaluation.count, note: folder)
        ]
        let pictures = try PictureMaker(classifier: classifier, extractor: extractor)
        page.details = details(
            name: "evaluated", evaluation: evaluation, predictions: result.predictions,
            labels: result.labels, pictures: pictures)
        let temperature = classifier.modelFile.temperature
        page.reliability = reliability(
            result.predictions, classCount: result.labels.count, split: "evaluated images",
            notes: temperature == 1
                ? [] : ["The model divides its logits by a temperature of \(Markup.number(temperature, decimals: 3)) fitted on held-out images."])
        page.thresholds = thresholds(result.predictions, classCount: result.labels.count, split: "evaluated images")
        page.counts = ModelReportPage.CountsTable(
            splits: ["images"],
            rows: result.labels.indices.map { label in
                (result.labels[label], [result.predictions.truths.filter { $0 == label }.count])
            })
        page.settings = [
            ("model", classifier.path), ("folder", folder), ("model created", classifier.modelFile.creationDate),
            ("preprocessing", classifier.preprocessing.summary), ("backbone", classifier.backboneDescription),
        ]
        page.unreadable = result.unreadable.map { ($0.path, $0.reason) }
        return page.html()
    }

    /// Writes a page atomically (a temporary file beside it, renamed into place).
    public static func write(_ html: String, to path: String) throws(WorkbenchError) {
        try WorkbenchError.passingOn(context: "cannot write the report") { try AtomicFile.write(text: html, to: path) }
    }

    // MARK: Pieces

    private static func accuracyRows(_ report: TrainingReport) -> [ModelReportPage.AccuracyRow] {
        var heldOut = report.selection?.method ?? report.settings.validationSource
        if let predictions = report.validation.predictions { heldOut += ", \(predictions) predictions" }
        return [
            row("training", report.training, note: "the images the head was fitted on"),
            row("validation", report.validation, note: heldOut),
            report.testingEvaluation == nil
                ? .init(split: "testing", accuracy: nil, count: 0, note: "no testing folder")
                : row("testing", report.testing, note: "the testing folder"),
        ]
    }

    private static func row(_ split: String, _ summary: TrainingReport.SplitSummary, note: String) -> ModelReportPage.AccuracyRow {
        .init(
            split: split, accuracy: summary.count > 0 ? summary.accuracy : nil, interval: summary.interval.map(range),
            count: summary.count, note: note)
    }

    private static func range(_ interval: AccuracyInterval) -> ClosedRange<Double> {
        min(interval.lower, interval.upper)...max(interval.lower, interval.upper)
    }

    /// The report's warning lines; those about duplicate files get the files side by side.
    private static func warnings(_ lines: [String], datasetWarnings: [DatasetWarning], pictures: PictureMaker) -> [ModelReportPage.Warning] {
        var warnings = lines.map { ModelReportPage.Warning(text: $0) }
        for warning in datasetWarnings {
            guard case let .duplicatesAcrossSplits(_, _, pairs) = warning,
                let index = warnings.firstIndex(where: { $0.text == "\(warning)" })
            else { continue }
            let shown = Array(pairs.prefix(maximumDuplicatePairs))
            let images = pictures.make(shown.flatMap { [($0.first, nil), ($0.second, nil)] })
            warnings[index].pairs = shown.indices.map { pair in
                (duplicate(shown[pair].first, images[2 * pair]), duplicate(shown[pair].second, images[2 * pair + 1]))
            }
            warnings[index].omittedPairs = pairs.count - shown.count
        }
        return warnings
    }

    /// The split whose mistakes the page shows: testing when there is one, else the held-out images, else (only)
    /// the training images. `name` is also its key in `TrainingResult.predictions`.
    private static func gallerySplit(_ report: TrainingReport) -> (name: String, evaluation: TrainingReport.SplitEvaluation) {
        if let testing = report.testingEvaluation { return ("testing", testing) }
        if let validation = report.validationEvaluation { return ("validation", validation) }
        return ("training", report.trainingEvaluation)
    }

    private static func l2Curve(_ report: TrainingReport) -> ModelReportPage.L2Curve? {
        guard let selection = report.selection, selection.grid.count > 1 else { return nil }
        let best = selection.grid.map(\.accuracy).max() ?? 0
        return .init(
            points: selection.grid.map { (l2: $0.l2, score: $0.accuracy) }, chosen: selection.chosen,
            scoreName: "held-out accuracy",
            tieWidth: L2Search.nearTieTolerance(accuracy: best, count: selection.heldOutImages))
    }

    /// "learning rate 0.0001", or both rates when the backbone's differs from the head's.
    private static func learningRates(_ tuning: TrainingReport.FineTuning) -> String {
        let backbone = Markup.number(tuning.backboneLearningRate, decimals: 6)
        guard tuning.backboneLearningRate != tuning.headLearningRate else { return "learning rate \(backbone)" }
        return "learning rate \(backbone) (backbone), \(Markup.number(tuning.headLearningRate, decimals: 6)) (head)"
    }

    private static func timingRows(_ timings: TrainingReport.Timings?) -> [(name: String, value: String)] {
        guard let timings else { return [] }
        var rows = [("scanning", timings.scanning), ("features", timings.features), ("fitting the head", timings.training)]
        if let selection = timings.selection { rows.append(("of which choosing the L2 strength", selection)) }
        rows.append(("total", timings.total))
        return rows.map { ($0.0, Markup.number($0.1, decimals: 2)) }
    }

    private static func duplicate(_ path: String, _ made: PictureMaker.Made) -> ModelReportPage.GalleryImage {
        ModelReportPage.GalleryImage(
            path: path, truth: path.split(separator: "/").dropLast().last.map(String.init) ?? "",
            predicted: "", confidence: 0, picture: made.picture, problem: made.problem)
    }

    static func details(
        name: String, evaluation: TrainingReport.SplitEvaluation, predictions: SplitPredictions, labels: [String],
        pictures: PictureMaker
    ) -> ModelReportPage.SplitDetails {
        let classCount = labels.count
        let labelIndex = Dictionary(uniqueKeysWithValues: labels.enumerated().map { ($1, $0) })
        // Worst first: the most confident mistakes; equal confidences keep the run's order.
        let mistakes = evaluation.misclassified.enumerated()
            .sorted { $0.element.confidence != $1.element.confidence ? $0.element.confidence > $1.element.confidence : $0.offset < $1.offset }
            .map(\.element)
        let shown = min(mistakes.count, maximumGalleryImages)
        // The most confident correct images of each label.
        var examples: [[(row: Int, confidence: Float)]] = Array(repeating: [], count: classCount)
        var seen: Set<String> = []
        for row in predictions.paths.indices where seen.insert(predictions.paths[row]).inserted {
            // Each file once (held-out images can be predicted once per cross-validation repeat).
            let probabilities = predictions.probabilities[(row * classCount)..<((row + 1) * classCount)]
            let best = Array(probabilities).indexOfMaximum
            if best == predictions.truths[row] { examples[best].append((row, probabilities[probabilities.startIndex + best])) }
        }
        let chosen = examples.map { rows in
            Array(
                rows.enumerated().sorted {
                    $0.element.confidence != $1.element.confidence ? $0.element.confidence > $1.element.confidence : $0.offset < $1.offset
                }
                .prefix(examplesPerLabel).map(\.element))
        }
        let requests =
            mistakes.prefix(shown).map { ($0.path, labelIndex[$0.predicted]) }
            + chosen.flatMap { $0.map { (predictions.paths[$0.row], nil as Int?) } }
        let made = pictures.make(requests)
        let gallery = mistakes.enumerated().map { index, mistake in
            ModelReportPage.GalleryImage(
                path: mistake.path, truth: mistake.truth, predicted: mistake.predicted, confidence: mistake.confidence,
                picture: index < shown ? made[index].picture : nil,
                overlay: index < shown ? made[index].overlay : nil,
                problem: index < shown ? made[index].problem : nil)
        }
        var next = shown
        let exampleImages = chosen.enumerated().map { label, rows in
            (
                label: labels[label],
                images: rows.map { row -> ModelReportPage.GalleryImage in
                    defer { next += 1 }
                    return .init(
                        path: predictions.paths[row.row], truth: labels[label], predicted: labels[label],
                        confidence: Double(row.confidence), picture: made[next].picture, problem: made[next].problem)
                }
            )
        }
        return .init(
            name: name, labels: labels, confusion: evaluation.confusionMatrix,
            perLabel: evaluation.perLabel.map { .init(label: $0.label, precision: $0.precision, recall: $0.recall, f1: $0.f1, support: $0.support) },
            macroF1: evaluation.macroF1, misclassified: gallery, shownMisclassified: shown, examples: exampleImages)
    }

    /// Equal-width confidence bins, as `CalibrationError` uses them: bin b holds top probabilities in
    /// (b/B, (b+1)/B], the first also 0, so the diagram and the reported error agree.
    static func reliability(
        _ predictions: SplitPredictions, classCount: Int, split: String,
        notes: [String] = []
    ) -> ModelReportPage.Reliability? {
        guard !predictions.paths.isEmpty else { return nil }
        let bins = CalibrationError.binCount
        var counts = [Int](repeating: 0, count: bins), right = [Int](repeating: 0, count: bins)
        var confidenceSums = [Double](repeating: 0, count: bins)
        for row in predictions.paths.indices {
            let probabilities = Array(predictions.probabilities[(row * classCount)..<((row + 1) * classCount)])
            let best = probabilities.indexOfMaximum
            let confidence = Double(probabilities[best])
            let bin = min(bins - 1, max(0, Int((confidence * Double(bins)).rounded(.up)) - 1))
            counts[bin] += 1
            confidenceSums[bin] += confidence
            if best == predictions.truths[row] { right[bin] += 1 }
        }
        var calibrationError = 0.0
        let total = Double(predictions.paths.count)
        let rows = (0..<bins).map { bin -> ModelReportPage.ReliabilityBin in
            let count = counts[bin]
            let meanConfidence = count > 0 ? confidenceSums[bin] / Double(count) : 0
            let accuracy = count > 0 ? Double(right[bin]) / Double(count) : 0
            calibrationError += Double(count) / total * abs(accuracy - meanConfidence)
            return .init(
                lower: Double(bin) / Double(bins), upper: Double(bin + 1) / Double(bins), count: count,
                meanConfidence: meanConfidence, accuracy: accuracy)
        }
        return .init(
            split: split, bins: rows,
            notes: ["Expected calibration error here (\(bins) bins): \(Markup.number(calibrationError, decimals: 3))."] + notes)
    }

    /// The held-out threshold table the training report carries, with the stored threshold marked.
    static func thresholds(_ report: TrainingReport) -> ModelReportPage.Thresholds? {
        guard let thresholds = report.thresholds, !thresholds.table.isEmpty else { return nil }
        var chosen: (threshold: Double, caption: String)?
        if let threshold = thresholds.chosen, let target = thresholds.targetPrecision {
            chosen = (threshold, "stored: \(Markup.number(threshold, decimals: 2)) for precision \(Markup.percent(target, decimals: 0))")
        }
        return .init(
            split: "held-out images", points: thresholds.table,
            chosen: chosen)
    }

    /// The same table measured on `predictions` (an evaluated folder, or a run without held-out images).
    static func thresholds(_ predictions: SplitPredictions, classCount: Int, split: String) -> ModelReportPage.Thresholds? {
        guard !predictions.paths.isEmpty else { return nil }
        var confidences: [Double] = [], correct: [Bool] = []
        for row in predictions.paths.indices {
            let probabilities = Array(predictions.probabilities[(row * classCount)..<((row + 1) * classCount)])
            let best = probabilities.indexOfMaximum
            confidences.append(Double(probabilities[best]))
            correct.append(best == predictions.truths[row])
        }
        return .init(split: split, points: ConfidenceThresholds.table(confidences: confidences, correct: correct))
    }

    private static func calibrationNotes(_ calibration: TrainingReport.Calibration?) -> [String] {
        guard let calibration else { return [] }
        var note =
            "Probabilities are divided by a temperature of \(Markup.number(calibration.temperature, decimals: 3)) fitted on the held-out images: "
            + "their calibration error went from \(Markup.number(calibration.heldOutBefore, decimals: 3)) to \(Markup.number(calibration.heldOutAfter, decimals: 3))"
        if let before = calibration.testingBefore, let after = calibration.testingAfter {
            note += ", the testing images' from \(Markup.number(before, decimals: 3)) to \(Markup.number(after, decimals: 3))"
        }
        return [note + "."]
    }

    private static func settingsRows(_ report: TrainingReport) -> [(name: String, value: String)] {
        let settings = report.settings
        var rows: [(name: String, value: String)] = [
            ("held out", report.selection?.method ?? settings.validationSource),
            ("seed", "\(settings.seed)"),
        ]
        var strength = Markup.number(settings.l2, decimals: 6)
        if let selection = report.selection, settings.l2Chosen {
            strength +=
                " (chosen from \(selection.grid.count) by held-out accuracy"
                + (selection.refitOnAllTrainingImages ? ", then refitted on all training images)" : ")")
        }
        rows.append(("L2 strength", strength))
        if let calibration = report.calibration { rows.append(("temperature", Markup.number(calibration.temperature, decimals: 4))) }
        if let thresholds = report.thresholds, let target = thresholds.targetPrecision {
            rows.append(
                (
                    "confidence threshold",
                    thresholds.chosen.map {
                        "\(Markup.number($0, decimals: 2)) (precision \(Markup.percent(target, decimals: 0)) on held-out images)"
                    }
                        ?? "none reaches precision \(Markup.percent(target, decimals: 0))"
                ))
        }
        if let views = settings.augmentedViews {
            rows.append(("augmented views", "\(views) per training image for the head (\(settings.augmentation ?? "default augmentations"))"))
        }
        rows += [
            ("class weights", settings.classWeighting),
            (
                "optimiser",
                "L-BFGS, \(settings.iterations) of at most \(settings.maxIterations) iterations, \(settings.converged ? "converged" : "not converged")"
            ),
            ("preprocessing", settings.preprocessing),
            ("backbone", settings.backbone),
        ]
        if let tuning = report.fineTuning {
            let last = tuning.firstTrainedBlock + tuning.trainedBlocks - 1
            rows.append(
                (
                    "fine-tuning",
                    "blocks \(tuning.firstTrainedBlock)–\(last), the final 1×1 convolution and the head; "
                        + "\(tuning.optimizer), \(Self.learningRates(tuning)), batch \(tuning.batchSize), "
                        + "label smoothing \(Markup.number(tuning.labelSmoothing, decimals: 2)), augmentation: "
                        + (tuning.augmentations.isEmpty ? "none" : tuning.augmentations.joined(separator: ", "))
                        + (tuning.fineTunedWeight.map { "; WiSE-FT: \(Markup.number($0, decimals: 2)) of the fine-tuned weights" } ?? "")
                ))
            let points = Markup.number(tuning.gain * 100, decimals: 1)
            rows.append(
                (
                    "fine-tuning result",
                    tuning.divergedAtEpoch.map { "diverged at epoch \($0) and stopped: the frozen model was kept" }
                        ?? (tuning.keptFrozenModel
                            ? "did not beat the frozen head on the held-out images (\(points) points): the frozen model was kept"
                            : "epoch \(tuning.bestEpoch) of \(tuning.epochs.count) kept, held-out accuracy \(Markup.percent(tuning.frozenHeldOutAccuracy, decimals: 1)) → \(Markup.percent(tuning.fineTunedHeldOutAccuracy, decimals: 1)) (\(points) points)")
                ))
            if let folds = tuning.folds, let decision = tuning.decision {
                let epoch = "epoch \(decision.epoch)"
                rows += folds.enumerated().map { index, fold in
                    (
                        "fine-tuning \(folds.count > 1 ? "fold \(index + 1)" : "held-out split")",
                        "\(fold.trainingImages) training, \(fold.heldOutImages) held out: frozen head \(Markup.percent(fold.frozenHeldOutAccuracy, decimals: 1)), "
                            + "fine-tuned (\(epoch)) \(Markup.percent(fold.fineTunedHeldOutAccuracy, decimals: 1))"
                    )
                }
                rows.append(
                    (
                        "fine-tuning decision",
                        Markup.escape(
                            "\(decision.method): \(decision.reason)"
                                + (decision.refit ? "; \(tuning.refitSummary(epochs: decision.epoch))" : ""))
                    ))
            }
        }
        if let choice = report.fineTuningChoice {
            rows.append(("automatic fine-tuning", Markup.escape(choice.reason)))
        }
        if let hint = report.fineTuningHint {
            rows.append(("fine-tuning", Markup.escape(hint.text)))
        }
        return rows
    }
}
