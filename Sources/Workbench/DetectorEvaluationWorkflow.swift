import DetectionAnnotations
import DetectorTraining
import FileFormats
import Foundation
import ImageCodecs
import Inference
import Reports

/// `workbench evaluate` with a detector model: the model, the boxes to score it on, and what else to write.
public struct DetectorEvaluationRequest: Sendable {
    /// The detector model file (`train` on annotations writes one).
    public var modelPath: String
    /// Boxes as `train` takes them: a folder with Create ML's `annotations.json`, a dataset folder whose
    /// `Testing Data/` has one (that split is scored, as a classifier's evaluation scores a dataset's testing
    /// split), or an annotations file itself (`detect --json`'s output on pictures).
    public var datasetPath: String
    /// The score at which precision and recall are given (0–1); nil is the threshold the model stores (best F1 on
    /// its held-out pictures, `detect`'s default). The mAPs do not depend on it: they rank every box.
    public var minimumScore: Double?
    /// Also write the detector page (`DetectorReports`) here; checked before the pictures are read.
    public var page: String?
    /// Average each picture's boxes with its mirror's (`MirrorAveraging`, `--tta`): twice the network's work.
    public var mirror = false
    /// Threads, pixel limit and feature cache use of the network (maps come from the cache when it is used).
    public var features = FeatureSettings()

    /// Scores the model at `modelPath` on `datasetPath` at its stored threshold, writing no page.
    public init(modelPath: String, datasetPath: String) {
        self.modelPath = modelPath
        self.datasetPath = datasetPath
    }
}

/// What a detector evaluation reports as it goes.
public enum DetectorEvaluationEvent: Sendable {
    /// Pictures scored so far, of the total.
    case progress(done: Int, total: Int)
}

/// A finished detector evaluation.
public struct DetectorEvaluationResult: Sendable {
    /// mAP@0.5 and mAP@0.5:0.95 overall and per label, precision and recall at the threshold: the values of a
    /// training report's `testing` section.
    public var scores: DetectorScores
    /// The annotations file whose boxes were scored.
    public var annotationsFile: String
    /// The model's labels, in its heat-map order.
    public var labels: [String]
    /// The threshold the model stores; `scores.threshold` differs from it when a minimum score was given.
    public var storedThreshold: Double
    /// Each picture with its objects and the boxes found, for a caller that wants to look closer.
    public var pictures: [ScoredPicture]
    /// Whether each picture's answer was averaged with its mirror's (`DetectorEvaluationRequest.mirror`).
    public var mirrored: Bool
    /// The page written, if one was asked for.
    public var pagePath: String?
    /// Boxes that overshot their picture by a few pixels and were cut to it (`AnnotationSet.clippedBoxes`).
    public var clippedBoxes: [ClippedBox] = []
}

/// `workbench evaluate MODEL DATASET` when MODEL is a detector: the model's boxes on every picture of the
/// dataset's annotations, scored as `train` scores its testing pictures (`DetectorTrainingRun.scoredPictures`,
/// the same maps, decoding and metrics), so the same model on the same pictures gives the same numbers (unless
/// `mirror` averages each picture with its mirror, which training's scores do not).
public enum DetectorEvaluationWorkflow {
    /// Reads the boxes `dataset` names (see `DetectorEvaluationRequest.datasetPath`). A folder without
    /// annotations (a classifier's folder of label subfolders, say) and a dataset with training annotations but
    /// no testing ones are refused in one line.
    public static func annotationSet(dataset path: String, maximumPixels: Int = DecodeOptions().maximumPixels) throws(WorkbenchError) -> AnnotationSet
    {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        // A file, or nothing there: the reader says which.
        guard files.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            return try AnnotationReader.readFileOrFolder(path, maximumPixels: maximumPixels)
        }
        func has(_ folder: String) -> Bool { files.fileExists(atPath: folder + "/" + AnnotationReader.fileName) }
        let testing = path + "/Testing Data"
        if has(testing) { return try AnnotationReader.readFileOrFolder(testing, maximumPixels: maximumPixels) }
        if has(path) { return try AnnotationReader.readFileOrFolder(path, maximumPixels: maximumPixels) }
        if has(path + "/Training Data") {
            throw WorkbenchError(
                path: path,
                reason: "has no \"Testing Data/\(AnnotationReader.fileName)\" to score a detector on "
                    + "(its training pictures would flatter it); give a folder or annotations file of other pictures")
        }
        throw WorkbenchError(
            path: path,
            reason: "no \(AnnotationReader.fileName) here or in \"Testing Data/\": a detector is scored "
                + "on boxes (Create ML's annotations, or the boxes detection writes), not on folders of labelled images",
            hint: .scoreDetectorOnBoxes)
    }

    /// Reads the annotations, checks the page (writable, no input), loads the model, finds its boxes on every
    /// picture (maps from the cache when `request.features` uses it) and scores them; then writes the page when
    /// asked. `events` counts the pictures done. A box whose label the model does not know is an error naming it.
    public static func run(
        _ request: DetectorEvaluationRequest, events: (DetectorEvaluationEvent) -> Void = { _ in }
    ) throws(WorkbenchError) -> DetectorEvaluationResult {
        let set = try annotationSet(dataset: request.datasetPath, maximumPixels: request.features.maximumPixels)
        let pictures = set.allImages
        guard !pictures.isEmpty else { throw WorkbenchError(path: set.file, reason: "no pictures to score") }
        try WritableOutput.checkConflicts(
            inputs: [request.modelPath, request.datasetPath, set.file] + pictures.map(\.path),
            outputs: [request.page])
        if let page = request.page { try WritableOutput.check(page) }
        let loaded = try LoadedDetector.load(path: request.modelPath, settings: request.features)
        let detector = loaded.detector
        if let unknown = set.labels.first(where: { !detector.labels.contains($0) }) {
            throw WorkbenchError(
                path: set.file,
                reason: "label '\(unknown)' is not one of the model's labels "
                    + "(\(detector.labels.joined(separator: ", ")))")
        }
        let scored = try DetectorTrainingRun.scoredPictures(
            detector, on: set, extractor: loaded.extractor, mirror: request.mirror,
            progress: { events(.progress(done: $0, total: $1)) })
        let threshold = request.minimumScore ?? detector.threshold
        let scores = DetectorScores(scored.map(\.evaluated), labels: detector.labels, threshold: threshold)
        if let page = request.page {
            try ModelReports.write(self.page(scored, request: request, detector: detector, annotationsFile: set.file).html(), to: page)
        }
        return DetectorEvaluationResult(
            scores: scores, annotationsFile: set.file, labels: detector.labels,
            storedThreshold: detector.threshold, pictures: scored, mirrored: request.mirror,
            pagePath: request.page, clippedBoxes: set.clippedBoxes)
    }

    /// The page: train's detector page over these pictures, its subtitle naming the model, the annotations and
    /// where the threshold comes from.
    static func page(
        _ scored: [ScoredPicture], request: DetectorEvaluationRequest, detector: TrainedDetector,
        annotationsFile: String
    ) -> DetectorReportPage {
        let threshold = request.minimumScore ?? detector.threshold
        let which = request.minimumScore == nil ? "the threshold the model stores (best held-out F1)" : "the score asked for"
        let subtitle =
            [
                "Model \(Markup.isolate(request.modelPath)), input \(detector.inputSide) × \(detector.inputSide), on the "
                    + "\(Markup.count(scored.count, "picture")) of \(Markup.isolate(annotationsFile)).",
                String(format: "Precision and recall at score %.3f: ", threshold) + which + ".",
            ]
            + (request.mirror
                ? ["Each picture's answer averaged with its mirror's (test-time augmentation); the stored threshold was chosen without it."] : [])
        let name = (request.datasetPath as NSString).lastPathComponent
        return DetectorReports.page(
            title: "Detector evaluation: \(Markup.isolate(name))", subtitle: subtitle,
            pictures: scored.map { DetectorReports.TestedPicture(path: $0.path, evaluated: $0.evaluated) },
            labels: detector.labels, threshold: threshold)
    }
}
