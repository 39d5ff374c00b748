import ClassifierTraining
import DataAudit
import Datasets
import FileFormats
import Foundation
import Inference
import Neighbours

/// What `workbench doctor` is asked to check and write.
public struct DoctorRequest: Sendable {
    /// The dataset folder, in any classifier layout `train` reads.
    public var datasetPath: String
    /// A separate testing folder, as `train --test` takes it.
    public var testingPath: String?
    /// A separate validation folder, as `train --validation` takes it.
    public var validationPath: String?
    /// Seed of the folds (the same as `train`'s, so the probabilities are those of `train`'s folds).
    public var seed: UInt64 = 42
    /// The HTML page; by default `defaultPagePath(dataset:)` in the working directory.
    public var page = DoctorPage.besideDatasetName
    /// Whether the report carries every picture's out-of-sample probabilities (`DoctorReport.outOfSample`).
    public var includesProbabilities = false
    /// The rules' constants.
    public var settings = AuditSettings()
    /// Files of chosen findings to move out of the dataset (`doctor --move-to`); nil changes nothing.
    public var move: DoctorMove?
    /// The network the features come from; by default set-up's pretrained weights.
    public var backbone = BackboneSource.pretrained(path: nil)
    /// Threads, pixel limit and feature cache use of the network.
    public var features = FeatureSettings()

    /// Checks the dataset at `datasetPath` with the defaults.
    public init(datasetPath: String) { self.datasetPath = datasetPath }
}

/// Where doctor's page goes.
public enum DoctorPage: Sendable, Equatable {
    /// `DoctorWorkflow.defaultPagePath(dataset:)`.
    case besideDatasetName
    /// At this path.
    case at(String)
    /// No page.
    case none
}

/// Progress of a doctor run.
public enum DoctorEvent: Sendable {
    /// Scanning, features and fitting, as a training run reports them.
    case training(TrainingEvent)
    /// Content hashes being read.
    case hashing(done: Int, total: Int)
    /// The nearest-neighbour search started.
    case searchingNeighbours(pictures: Int)
}

/// A finished doctor run.
public struct DoctorResult: Sendable {
    /// The findings and the facts behind them.
    public var report: DoctorReport
    /// The page written, if any.
    public var pagePath: String?
    /// The files moved out of the dataset (`DoctorRequest.move`), in order.
    public var moved: [FileMove] = []
    /// The undo list written beside the moved files, when a move was asked for.
    public var undoListPath: String?
}

/// `workbench doctor`: the pictures of a dataset checked before training — copies and leaks across splits, pictures
/// likely in the wrong folder, outliers — from the features `train` computes (and caches) and out-of-sample
/// probabilities of the head `train` fits. Never changes the dataset.
public enum DoctorWorkflow {
    /// Runs `request`: scans and embeds the dataset (`OutOfSamplePredictions`), hashes every picture, searches the
    /// nearest neighbours (`NearestNeighbours`), finds (`DatasetAudit`) and writes the page.
    public static func run(_ request: DoctorRequest, events: (DoctorEvent) -> Void = { _ in }) throws(WorkbenchError) -> DoctorResult {
        let pagePath = pagePath(request)
        let inputs = [request.datasetPath, request.testingPath, request.validationPath, request.backbone.filePath].compactMap { $0 }
        try WritableOutput.checkConflicts(inputs: inputs, outputs: [pagePath])
        if let pagePath { try WritableOutput.check(pagePath) }
        try refuseInside(inputs: inputs, output: pagePath)
        if let move = request.move {
            try WorkbenchError.passingOn { try FileMoves.refuseDestination(move.folder, roots: inputs) }
        }

        var training = TrainingRequest(datasetPath: request.datasetPath)
        (training.testingPath, training.validationPath, training.seed) = (request.testingPath, request.validationPath, request.seed)
        let extractor = FeatureExtractor(backbone: try request.backbone.load(), settings: request.features)
        let predictions = try OutOfSamplePredictions.run(training, extractor: extractor, events: { events(.training($0)) })
        let count = predictions.paths.count
        var hashes: [String?] = []
        for (index, path) in predictions.paths.enumerated() {
            hashes.append(try? ContentHash.ofFile(path: path).hex)
            events(.hashing(done: index + 1, total: count))
        }
        events(.searchingNeighbours(pictures: count))
        // Query blocks run on the workers; BLAS on more threads of its own would oversubscribe the cores.
        GEMM.setBLASThreads(1)
        let neighbours = NearestNeighbours.search(
            features: predictions.features, count: count, dimension: max(1, predictions.features.count / max(count, 1)),
            k: AuditSettings.neighbourCount, threads: request.features.threads)
        let pictures = (0..<count).map {
            AuditedPicture(path: predictions.paths[$0], split: predictions.splits[$0], label: predictions.truths[$0])
        }
        let findings = DatasetAudit.find(
            pictures: pictures, labels: predictions.labels, probabilities: predictions.probabilities, hashes: hashes,
            neighbours: neighbours, settings: request.settings)
        let report = report(predictions, findings: findings, settings: request.settings, includesProbabilities: request.includesProbabilities)
        if let pagePath { try DoctorExplorePage.write(report, dataset: request.datasetPath, to: pagePath, extractor: extractor) }
        var result = DoctorResult(report: report, pagePath: pagePath)
        if let move = request.move {
            let roots = [request.datasetPath, request.testingPath, request.validationPath].compactMap { $0 }
            let performed = try perform(move, findings: findings, roots: roots)
            result.moved = performed.moves
            result.undoListPath = performed.undoList
        }
        return result
    }

    /// `Name-doctor.html` in the working directory: the name `train` gives the dataset's model
    /// (`TrainingWorkflow.defaultModelPath`), so datasets/drawings gives Drawings-doctor.html beside Drawings.html.
    public static func defaultPagePath(dataset: String) -> String {
        (TrainingWorkflow.defaultModelPath(dataset: dataset) as NSString).deletingPathExtension + "-doctor.html"
    }

    static func pagePath(_ request: DoctorRequest) -> String? {
        switch request.page {
        case .besideDatasetName: defaultPagePath(dataset: request.datasetPath)
        case .at(let path): path
        case .none: nil
        }
    }

    /// Doctor never writes into the folders it reads.
    static func refuseInside(inputs: [String], output: String?) throws(WorkbenchError) {
        guard let output else { return }
        let resolved = URL(fileURLWithPath: output).standardizedFileURL.resolvingSymlinksInPath().path
        for input in inputs where FolderWalk.isFolder(input) {
            let folder = URL(fileURLWithPath: input).standardizedFileURL.resolvingSymlinksInPath().path
            if resolved.hasPrefix(folder + "/") {
                throw WorkbenchError(path: output, reason: "is inside the dataset folder \(input), which doctor never changes")
            }
        }
    }

    static func report(
        _ predictions: OutOfSamplePredictions, findings: AuditFindings, settings: AuditSettings, includesProbabilities: Bool
    ) -> DoctorReport {
        let classCount = predictions.labels.count
        let outOfSample =
            includesProbabilities
            ? DoctorReport.OutOfSample(
                labels: predictions.labels, paths: predictions.paths, splits: predictions.splits, truths: predictions.truths,
                probabilities: predictions.paths.indices.map { Array(predictions.probabilities[($0 * classCount)..<(($0 + 1) * classCount)]) })
            : nil
        return DoctorReport(
            labelIssues: findings.labelIssues, duplicates: findings.duplicates, outliers: findings.outliers,
            labels: predictions.counts, warnings: predictions.datasetWarnings.map { "\($0)" }, unreadable: predictions.unreadable,
            rules: DoctorReport.Rules(
                probabilities: predictions.method, l2: predictions.l2,
                medianNearestDistance: findings.neighbourSummary.medianNearestDistance, nearCopyDistance: findings.nearCopyDistance,
                outlierCut: settings.outlierCut, neighbours: AuditSettings.neighbourCount),
            outOfSample: outOfSample)
    }
}
