import Datasets
import Foundation
import ClusterJobs
import Inference
import Labeling

/// `workbench label --results DIR`: a labeling run split into shards that write one result file per movie into a
/// shared folder; `MovieDataMergeWorkflow` (`label merge`) then folds them all into the player's file in one locked
/// write.
public enum ShardedLabeling {
    /// A movie of a run and its id in the player file.
    public typealias Movie = MovieResultFolder.Movie

    /// The movies with their ids and absolute paths. A movie's id is its file name without the extension (a frames
    /// folder's name), as a catalog named `1234.mp4` or `Heat.mp4` has it; two movies with one id are refused.
    public static func movies(_ paths: [String]) throws(WorkbenchError) -> [Movie] {
        var movies: [Movie] = []
        var byID: [String: String] = [:]
        for path in paths {
            let absolute = absolutePath(path)
            let name = (absolute as NSString).lastPathComponent
            var isDirectory: ObjCBool = false
            let isFolder = FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) && isDirectory.boolValue
            let id = isFolder ? name : (name as NSString).deletingPathExtension
            guard !id.isEmpty else { throw WorkbenchError(path: path, reason: "cannot take a movie id from this name") }
            if let other = byID[id] {
                throw WorkbenchError(
                    path: path, reason: "has the id '\(id)' of \(other) too: movie ids are file names without extension, and must differ")
            }
            byID[id] = path
            movies.append(Movie(id: id, path: absolute))
        }
        return movies
    }

    /// Creates the results folder with its manifest, or checks that it belongs to this run: these movies, this
    /// model (by content) and these settings. Returns the run's origin, which every result file records.
    @discardableResult
    public static func prepare(
        results: String, movies: [Movie], modelPath: String,
        settings: LabelSettings
    ) throws(WorkbenchError) -> MovieResultFolder.Origin {
        let model: ContentHash = try WorkbenchError.passingOn { try ContentHash.ofFile(path: modelPath) }
        let origin = MovieResultFolder.Origin(modelPath: absolutePath(modelPath), modelSHA256: model.hex, settings: settings.summary)
        try WorkbenchError.passingOn { try MovieResultFolder(path: absolutePath(results)).prepare(.init(origin: origin, movies: movies)) }
        return origin
    }

    /// What `run` is asked to do: one shard of a sharded labeling run.
    public struct ShardRequest: Sendable {
        /// Every movie of the run (each task is given the same list), in order.
        public var movies: [String]
        /// This task's part of them.
        public var shard: Shard
        /// The shared results folder: one result file per movie, and the run's manifest.
        public var results: String
        /// The model.
        public var model: ClassifierSource
        /// Sampling and marker policy, the same for every task of the run.
        public var settings = LabelSettings()
        /// Threads and pixel limit of the model's network.
        public var features = FeatureSettings()

        /// `shard` of `movies` labelled by `model` into `results`, with the default settings.
        public init(movies: [String], shard: Shard, results: String, model: ClassifierSource) {
            self.movies = movies
            self.shard = shard
            self.results = results
            self.model = model
        }
    }

    /// What happens to each movie of a shard, for the command to report.
    public enum Event: Sendable {
        /// A result was already there (an earlier attempt of this task got this far).
        case alreadyDone(Movie)
        /// Labeling starts.
        case started(Movie)
        /// Frames labeled so far of this movie; the total when known.
        case progress(done: Int, expected: Int?)
        /// The result file is written.
        case labeled(Movie, markers: Int, frames: Int, resultPath: String)
        /// A frame of a frames folder could not be read (skipped; the movie still gets its result).
        case skippedFrame(Movie, reason: String)
        /// The movie failed; the others go on, and it has no result.
        case failed(Movie, WorkbenchError)
    }

    /// How a shard went.
    public struct ShardResult: Sendable, Equatable {
        /// Movies of the shard.
        public var movies: Int
        /// Labeled now.
        public var labeled: Int
        /// Skipped because an earlier attempt labeled them.
        public var alreadyDone: Int
        /// Failed (no result written).
        public var failed: Int
    }

    /// `workbench label --results DIR [--shard I/N]`: reads the model and labels the shard's part of the movies
    /// into `results`, skipping movies that already have a result, so a task run again resumes. Refuses a results
    /// folder that is a movie or the model; prepares the folder first (see `prepare`). One movie failing does not
    /// stop the others.
    public static func run(_ request: ShardRequest, events: @escaping (Event) -> Void = { _ in }) throws(WorkbenchError) -> ShardResult {
        let classifier = try request.model.load()
        let extractor = FeatureExtractor(backbone: classifier.backbone, settings: request.features)
        let (paths, settings, results) = (request.movies, request.settings, request.results)
        let movies = try movies(paths)
        let folder = MovieResultFolder(path: absolutePath(results))
        // The folder's writes replace its entries, never what a link there points to: only names can clash.
        let resultNames = Set(movies.map { (folder.resultPath(id: $0.id) as NSString).lastPathComponent })
        let ownNames = Set([folder.manifestPath, folder.moviesFolder].map { ($0 as NSString).lastPathComponent })
        try WritableOutput.checkConflicts(
            inputs: WritableOutput.movieFiles(paths) + [classifier.path], outputs: [results],
            filledFolders: [
                .init(path: results, contents: "the run's manifest", writesThroughLinks: false) { ownNames.contains($0) },
                .init(path: folder.moviesFolder, contents: "a movie's result", writesThroughLinks: false) { resultNames.contains($0) },
            ])
        let origin = try prepare(results: results, movies: movies, modelPath: classifier.path, settings: settings)
        let policy = try settings.markerPolicy(for: classifier)
        let mine = Set(InputSharding.movies(movies.map(\.path), shard: request.shard))
        var outcome = ShardResult(movies: mine.count, labeled: 0, alreadyDone: 0, failed: 0)
        for movie in movies where mine.contains(movie.path) {
            do throws(WorkbenchError) {
                // A link or FIFO in the result's place fails this movie, before any labeling.
                let done: Bool = try WorkbenchError.passingOn { try folder.hasResult(for: movie, origin: origin) }
                if done {
                    outcome.alreadyDone += 1
                    events(.alreadyDone(movie))
                    continue
                }
                events(.started(movie))
                let result = try MovieLabeling.label(
                    movie: movie.path, classifier: classifier, extractor: extractor,
                    sampling: settings.sampling,
                    progress: { events(.progress(done: $0, expected: $1)) })
                for skipped in result.skippedFrames { events(.skippedFrame(movie, reason: "\(skipped.error)")) }
                let markers = policy.markerObject(result.frames)
                try WorkbenchError.passingOn {
                    try folder.store(.init(movie: movie, markers: markers, frameCount: result.frames.count, origin: origin))
                }
                outcome.labeled += 1
                events(.labeled(movie, markers: markers.count, frames: result.frames.count, resultPath: folder.resultPath(id: movie.id)))
            } catch {
                outcome.failed += 1
                events(.failed(movie, error))
            }
        }
        return outcome
    }

    /// Reads the player file at `path`, so a broken one is reported before any labeling rather than at the merge.
    public static func checkMovieData(_ path: String) throws(WorkbenchError) {
        _ = try WorkbenchError.passingOn { try MovieData.load(path: path) }
    }

    /// `path` made absolute against the working folder and tidied (`.`, `..`, doubled `/`), so every task names a
    /// file the same way whatever folder it starts in.
    static func absolutePath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
