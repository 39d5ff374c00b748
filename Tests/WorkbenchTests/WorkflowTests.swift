import Foundation
import Workbench
import XCTest
import _TestSupport

/// Every workflow through the Swift API, in this process, on the tiny cat/espresso dataset: the library as a program
/// that imports `Workbench` uses it, with no binary in between. One model is trained for the whole class (the
/// network's pass over 32 images is the slow part) and each test starts from it.
final class WorkflowTests: XCTestCase {
    /// The temporary folder, the dataset and the model trained on it, shared by the tests of this class.
    private struct Trained {
        let workspace: TinyDatasetWorkspace
        let result: TrainingResult
        let modelPath: String
        let classifier: Classifier
    }

    nonisolated(unsafe) private static var trained: Result<Trained, Error>?

    /// No feature cache: a test must neither read nor fill the user's.
    private static let features = FeatureSettings(threads: 2, usesCache: false)

    /// The backbone set-up made, found as an installed or cloned `workbench` finds it.
    private static func extractor(backbone: Backbone? = nil) throws -> FeatureExtractor {
        let chosen = try backbone ?? Backbone.load(path: BackboneLocation.resolve())
        return FeatureExtractor(backbone: chosen, settings: features)
    }

    private func trainedModel() throws -> Trained {
        if let trained = Self.trained { return try trained.get() }
        let outcome = Result { () throws -> Trained in
            let workspace = try TinyDatasetWorkspace()
            let modelPath = workspace.folder.appendingPathComponent("Tiny.wbmodel").path
            var request = TrainingWorkflowRequest(datasetPath: workspace.dataset.path)
            request.training.creationDate = Date(timeIntervalSince1970: 1_700_000_000)
            request.output = TrainingOutput(model: modelPath, page: .none)
            request.features = Self.features
            var events: [TrainingEvent] = []
            let trained = try TrainingWorkflow.run(request) { events.append($0) }
            XCTAssertTrue(events.contains { if case .fitting = $0 { true } else { false } }, "progress reaches the fit")
            XCTAssertEqual(trained.modelPath, modelPath)
            XCTAssertNil(trained.pagePath)
            return Trained(
                workspace: workspace, result: trained.result, modelPath: modelPath,
                classifier: try Classifier.load(path: modelPath))
        }
        Self.trained = outcome
        return try outcome.get()
    }

    override class func tearDown() {
        if case .success(let trained) = trained { trained.workspace.remove() }
        super.tearDown()
    }

    private func testingImages(_ trained: Trained) throws -> [(path: String, label: String)] {
        let testing = trained.workspace.dataset.appendingPathComponent("Testing Data")
        return try trained.classifier.labels.flatMap { label in
            let folder = testing.appendingPathComponent(label)
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                .map { (folder.appendingPathComponent($0).path, label) }
        }
    }

    func testTrainWritesAModelThatClassifiesTheTestingImages() throws {
        let trained = try trainedModel()
        XCTAssertEqual(trained.classifier.labels, ["cat", "espresso"])
        XCTAssertEqual(trained.result.report.labels, trained.classifier.labels)
        let images = try testingImages(trained)
        XCTAssertGreaterThanOrEqual(images.count, 4)
        var predictions: [Prediction] = []
        ClassificationWorkflow.classify(
            paths: images.map(\.path), classifier: trained.classifier,
            extractor: try Self.extractor(backbone: trained.classifier.backbone)
        ) { index, path, result in
            XCTAssertEqual(path, images[index].path, "predictions come in input order")
            switch result {
            case .success(let prediction): predictions.append(prediction)
            case .failure(let error): XCTFail("\(error)")
            }
            return true
        }
        XCTAssertEqual(predictions.count, images.count)
        for prediction in predictions {
            XCTAssertEqual(prediction.probabilities.reduce(0, +), 1, accuracy: 1e-4)
            XCTAssertEqual(prediction.confidence, prediction.probabilities.max())
        }
        let right = zip(predictions, images).filter { $0.label == $1.label }.count
        // A cat and an espresso cup are far apart in ImageNet features; the tiny set's crops and tints keep them so.
        XCTAssertGreaterThanOrEqual(Double(right) / Double(images.count), 0.9, "\(right) of \(images.count) right")
        // The report's testing accuracy is what classify gives on the same images.
        XCTAssertEqual(trained.result.report.testing.accuracy, Double(right) / Double(images.count), accuracy: 1e-9)
    }

    func testEvaluateAgreesWithClassify() throws {
        let trained = try trainedModel()
        let testing = trained.workspace.dataset.appendingPathComponent("Testing Data").path
        var warnings: [String] = []
        var request = EvaluationRequest(folder: testing, model: .loaded(trained.classifier))
        request.features = Self.features
        let evaluated = try EvaluationWorkflow.run(request) { if case .warning(let line) = $0 { warnings.append(line) } }
        XCTAssertEqual(warnings, [])
        XCTAssertEqual(evaluated.evaluation.count, try testingImages(trained).count)
        XCTAssertEqual(evaluated.evaluation.accuracy, trained.result.report.testing.accuracy, accuracy: 1e-9)
        XCTAssertEqual(evaluated.evaluation.confusionMatrix.flatMap { $0 }.reduce(0, +), evaluated.evaluation.count)

        // An object-detection folder is a detector's data: refused in one line, before any image is read.
        let boxes = trained.workspace.folder.appendingPathComponent("boxes")
        try SyntheticDetectionDataset.write(to: boxes, count: 1, side: 32, seed: 1)
        request.folder = boxes.path
        XCTAssertThrowsError(try EvaluationWorkflow.run(request) { _ in XCTFail("no image is read") }) { error in
            XCTAssertEqual(
                "\(error)",
                "\(boxes.path): is an object-detection dataset (annotations.json); \(trained.modelPath) is a "
                    + "classifier, evaluated on folders of labelled images")
        }
    }

    func testExportWritesBothFormatsNextToTheModel() throws {
        let trained = try trainedModel()
        for format in ExportWorkflow.Format.allCases {
            let output = ExportWorkflow.defaultOutputPath(model: trained.modelPath, format: format)
            XCTAssertNotEqual(output, trained.modelPath)
            try ExportWorkflow.export(trained.classifier, format: format, to: output)
            let size = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
            // Both formats carry the whole backbone: over 10 MB of weights.
            XCTAssertGreaterThan(size, 10_000_000, "\(format) export of \(size) bytes")
        }
    }

    func testLabelAMovieIntoThePlayerFile() throws {
        let trained = try trainedModel()
        let folder = trained.workspace.folder
        let pictures = try testingImages(trained)
        // Three seconds of a cat, then three of an espresso.
        let cat = pictures.first { $0.label == "cat" }!.path, espresso = pictures.first { $0.label == "espresso" }!.path
        let movie = folder.appendingPathComponent("movie.mp4")
        try TestMedia.video(
            pictures: [URL(fileURLWithPath: cat), URL(fileURLWithPath: espresso)], seconds: 3, to: movie,
            environment: ProcessInfo.processInfo.environment)
        let movieData = folder.appendingPathComponent("MovieData.json").path
        var request = LabelingRequest(movies: [movie.path], model: .loaded(trained.classifier))
        request.movieData = MovieDataEntry(path: movieData, id: "7", title: "Tiny")
        request.features = Self.features
        var events: [LabelingEvent] = []
        let outcome = try LabelingWorkflow.run(request) { events.append($0) }
        XCTAssertEqual(outcome.labeledMovies, 1)
        XCTAssertEqual(outcome.failedMovies, [])
        XCTAssertEqual(outcome.frames, 6, "one frame a second of a six-second movie")
        let labeled = events.compactMap { if case .labeled(let movie) = $0 { movie } else { nil } }
        XCTAssertEqual(labeled.count, 1)
        XCTAssertEqual(labeled.first?.markers["0"], "cat")
        XCTAssertEqual(labeled.first?.markers["5"], "espresso")
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: movieData))) as? [[String: Any]]
        XCTAssertEqual(written?.first?["title"] as? String, "Tiny")
        XCTAssertEqual((written?.first?["markers"] as? [String: String])?["0"], "cat")
    }

    func testShardsThenMergeGiveEveryMovieOnce() throws {
        let trained = try trainedModel()
        let folder = trained.workspace.folder.appendingPathComponent("sharded")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pictures = try testingImages(trained).map { URL(fileURLWithPath: $0.path) }
        XCTAssertGreaterThanOrEqual(pictures.count, 3)
        var movies: [String] = []
        for (number, picture) in pictures.prefix(3).enumerated() {
            let movie = folder.appendingPathComponent("clip\(number).mp4")
            try TestMedia.video(pictures: [picture], seconds: 2, to: movie, environment: ProcessInfo.processInfo.environment)
            movies.append(movie.path)
        }
        let results = folder.appendingPathComponent("results").path
        var labeled = 0
        for index in 0..<2 {
            var request = ShardedLabeling.ShardRequest(
                movies: movies, shard: try Shard(index: index, count: 2), results: results, model: .path(trained.modelPath))
            request.features = Self.features
            let outcome = try ShardedLabeling.run(request)
            XCTAssertEqual(outcome.failed, 0)
            labeled += outcome.labeled
        }
        XCTAssertEqual(labeled, movies.count, "the two shards split the movies between them")
        let movieData = folder.appendingPathComponent("MovieData.json").path
        let merged = try MovieDataMergeWorkflow.run(MovieDataMergeRequest(results: results, movieData: movieData))
        XCTAssertEqual(merged.movies, movies.count)
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: movieData))) as? [[String: Any]]
        XCTAssertEqual(Set(written?.compactMap { $0["id"] as? String } ?? []), ["clip0", "clip1", "clip2"])
    }

    func testFeaturesOfOneImageMatchWhatTheClassifierSees() throws {
        let trained = try trainedModel()
        let image = try testingImages(trained)[0].path
        let extractor = try Self.extractor(backbone: trained.classifier.backbone)
        let features = try extractor.features(ofImageAt: image)
        XCTAssertEqual(features.count, 1280)
        let probabilities = trained.classifier.probabilities(features: features, count: 1)
        var classified: Prediction?
        ClassificationWorkflow.classify(paths: [image], classifier: trained.classifier, extractor: extractor) { _, _, result in
            classified = try? result.get()
            return true
        }
        XCTAssertEqual(classified?.probabilities, probabilities)
    }

    func testClassifyARequestChecksItAgainstTheModelAndAnswersInOrder() throws {
        let trained = try trainedModel()
        let images = try testingImages(trained)
        var request = ClassifyRequest(inputs: images.map(\.path), model: .path(trained.modelPath))
        request.features = Self.features
        var predictions: [Prediction] = []
        var started: Int?
        let result = try ClassificationWorkflow.run(request, events: { if case .started(let count) = $0 { started = count } }) {
            predictions.append($0)
            return true
        }
        XCTAssertEqual(started, images.count)
        XCTAssertEqual(result.images, images.count)
        XCTAssertEqual(result.failed, 0)
        XCTAssertEqual(predictions.map(\.path), images.map(\.path), "in input order")
        let right = zip(predictions, images).filter { $0.label == $1.label }.count
        XCTAssertEqual(trained.result.report.testing.accuracy, Double(right) / Double(images.count), accuracy: 1e-9)

        request.label = "dog"
        XCTAssertThrowsError(
            try ClassificationWorkflow.run(request) { _ in
                XCTFail("nothing is classified"); return true
            }
        ) { error in
            XCTAssertEqual("\(error)", "\(trained.modelPath): the model has no label 'dog' (labels: cat, espresso)")
        }
    }

    /// `slurm label --dry-run`: the array job and the merge job that waits for it, planned from the model and the
    /// movies (which only need to exist), with nothing written and nothing submitted.
    func testASlurmLabelDryRunPlansTheArrayAndTheMerge() throws {
        let trained = try trainedModel()
        let folder = trained.workspace.folder.appendingPathComponent("slurm")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let movies = try ["a.mp4", "b.mp4", "c.mp4"].map { name in
            let movie = folder.appendingPathComponent(name)
            try Data().write(to: movie)
            return movie.path
        }
        let jobFolder = folder.appendingPathComponent("job").path
        var request = SlurmJobRequest(
            job: .label(
                model: trained.modelPath, movies: movies, movieData: folder.appendingPathComponent("MovieData.json").path, results: nil,
                settings: LabelSettings()),
            cluster: SlurmRequest(tasks: 2, jobFolder: jobFolder))
        request.submits = false
        let result = try SlurmWorkflow.run(request) { _ in XCTFail("nothing is submitted") }
        XCTAssertEqual(result.submitted, [])
        XCTAssertEqual(result.plan.jobs.map(\.scriptPath), [jobFolder + "/label-array.sbatch", jobFolder + "/label-merge.sbatch"])
        XCTAssertEqual(result.plan.jobs.map(\.afterPrevious), [false, true], "the merge waits for the array")
        XCTAssertTrue(result.plan.jobs[0].script.contains("#SBATCH --array=0-1\n"), result.plan.jobs[0].script)
        XCTAssertFalse(result.plan.jobs[1].script.contains("#SBATCH --array"), result.plan.jobs[1].script)
        for movie in movies { XCTAssertTrue(result.plan.jobs[0].script.contains(movie), "the tasks name \(movie)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: jobFolder), "no script, no results folder")

        request.cluster.tasks = 4
        XCTAssertThrowsError(try SlurmWorkflow.run(request)) { error in
            XCTAssertEqual("\(error)", "4 tasks are more than the 3 movies: some tasks would have nothing to do")
        }
    }
}
