import Foundation
import ImageCodecs
import Labeling
import Video

/// What `workbench label` does with a list of movies besides printing their labels: the player's file, the
/// highlight reel, the review files.
public struct LabelingRequest: Sendable {
    /// Video files or folders of numbered frames, in order.
    public var movies: [String]
    /// Sampling and marker policy.
    public var settings: LabelSettings
    /// Seconds of the best window in each summary and highlight.
    public var window: Double = 5
    /// Whether summaries go into the review page (they are always computed for the highlights and the JSON).
    public var showsSummaries = false
    /// Insert or update each movie's markers in a player file, as soon as the movie is labelled.
    public var movieData: MovieDataEntry?
    /// Cut a highlight reel from the movies.
    public var highlights: HighlightRequest?
    /// Review files to write after the last movie.
    public var review = ReviewFiles()
    /// The model.
    public var model: ClassifierSource
    /// Threads and pixel limit of the model's network (frames are decoded, not files: the cache is not read).
    public var features = FeatureSettings()

    /// Labels `movies` with `model`, the default settings and nothing else written.
    public init(movies: [String], model: ClassifierSource, settings: LabelSettings = LabelSettings()) {
        self.movies = movies
        self.model = model
        self.settings = settings
    }
}

extension LabelingRequest {
    /// Checks the files this run writes before any movie is labelled: a review copy or reel must end in a video
    /// container's name (`VideoContainer`), and no output may be a movie, the model at `modelPath` or another
    /// output (`WritableOutput.checkConflicts`). The player file is read and written by design: it counts as an
    /// output only.
    func checkOutputs(modelPath: String) throws(WorkbenchError) {
        let copies =
            try review.annotate.map { destination throws(WorkbenchError) in
                try PerInputOutputs.paths(inputs: movies, destination: destination, fileExtension: "mp4")
            } ?? []
        for video in copies + [highlights?.output].compactMap({ $0 }) {
            try WorkbenchError.passingOn { try VideoContainer.check(output: video) }
        }
        var outputs = [movieData?.path, review.html, highlights?.output] + (copies as [String?])
        if let vtt = review.vtt {
            outputs += try PerInputOutputs.paths(inputs: movies, destination: vtt, fileExtension: "vtt") as [String?]
        }
        try WritableOutput.checkConflicts(inputs: WritableOutput.movieFiles(movies) + [modelPath], outputs: outputs)
    }
}

/// Where `LabelingWorkflow.run` puts the markers: the player's `MovieData.json`, and for a single movie its id and
/// details if given. Title, description and poster are kept when nil.
public struct MovieDataEntry: Sendable {
    /// The player file (created if missing).
    public var path: String
    /// The one movie's id in it; nil takes each movie's id from its file name without the extension (a frames
    /// folder's name), as `label --results` and `label merge` do (`ShardedLabeling.movies`).
    public var id: String?
    /// The one movie's title.
    public var title: String?
    /// The one movie's description.
    public var description: String?
    /// The one movie's poster image name.
    public var poster: String?

    /// An entry in the file at `path`; `id`, `title`, `description` and `poster` name one movie.
    public init(path: String, id: String? = nil, title: String? = nil, description: String? = nil, poster: String? = nil) {
        self.path = path
        self.id = id
        self.title = title
        self.description = description
        self.poster = poster
    }

    /// Whether an id or details are given, which belong to one movie.
    public var describesOneMovie: Bool { id != nil || title != nil || description != nil || poster != nil }

    /// Each movie's id in the player file: the one given, or each file name without its extension. Two movies with
    /// one id are refused, naming both, before any movie is labelled.
    func ids(of movies: [String]) throws(WorkbenchError) -> [String] {
        if describesOneMovie, movies.count > 1 {
            throw WorkbenchError(
                path: path,
                reason: "an id, title, description or poster describes one movie, not \(movies.count): "
                    + "each movie's id is then its file name without extension")
        }
        if let id { return [id] }
        return try ShardedLabeling.movies(movies).map(\.id)
    }
}

/// A highlight reel: the best window of each chosen video, joined.
public struct HighlightRequest: Sendable {
    /// The label the clips show; must be one of the model's.
    public var label: String
    /// The reel to write.
    public var output: String
    /// The `count` videos that score highest on `label`; nil takes every video whose top label it is.
    public var count: Int?
    /// The reel's size (even sides, `HighlightFormat.isValid`); nil is the largest movie's, never upscaled.
    public var size: ImageSize?

    /// A reel of `label` written to `output`.
    public init(label: String, output: String, count: Int? = nil, size: ImageSize? = nil) {
        self.label = label
        self.output = output
        self.count = count
        self.size = size
    }
}

/// The review files of a labeling run (see `LabelingReview`); nil leaves one out.
public struct ReviewFiles: Sendable {
    /// The HTML page.
    public var html: String?
    /// WebVTT subtitles: a file, or a folder for several movies.
    public var vtt: String?
    /// Review copies with labels burned in: a file, or a folder for several movies.
    public var annotate: String?
    /// Whether any review file is asked for.
    public var isRequested: Bool { html != nil || vtt != nil || annotate != nil }

    /// The files named.
    public init(html: String? = nil, vtt: String? = nil, annotate: String? = nil) {
        self.html = html
        self.vtt = vtt
        self.annotate = annotate
    }
}

/// A movie labelled by `LabelingWorkflow.run`, with what the command shows of it.
public struct LabeledMovie: Sendable {
    /// The frames and what was skipped.
    public var result: MovieLabeling.MovieResult
    /// Each frame's decision under the marker policy, in frame order.
    public var decisions: [FrameDecision]
    /// The player file's markers: second → label.
    public var markers: [String: String]
    /// Mean confidences, top label and best windows.
    public var summary: VideoSummary
    /// The minimum confidence in force (the model's own threshold for `--min-confidence auto`).
    public var minimumConfidence: Double
}

/// Progress of `LabelingWorkflow.run`, for the command to render, in the order things happen.
public enum LabelingEvent: Sendable {
    /// A movie's labeling starts.
    case started(movie: String)
    /// Frames labelled so far of the current movie; the total when known.
    case progress(done: Int, expected: Int?)
    /// The current movie could not be labelled; the others go on.
    case failed(movie: String, WorkbenchError)
    /// The current movie's frames are labelled (its warnings follow).
    case finished(movie: String)
    /// Something worth a line: a folder entry that is not a frame, a frame skipped.
    case warning(String)
    /// A movie's labels, to show.
    case labeled(LabeledMovie)
    /// The movie's markers went into the player file.
    case movieDataWritten(markers: Int, path: String, id: String)
    /// The highlight reel is written: its clips (video, window, score) and size.
    case highlightsWritten(HighlightReelResult)
    /// What the page's player plays for a movie file (with a page only; before the page's `reviewWritten`).
    case pageVideo(PageVideo)
    /// A review file is written.
    case reviewWritten(ReviewFileKind, path: String)
}

/// The kinds of review file.
public enum ReviewFileKind: Sendable {
    case page, subtitles, annotatedCopy
}

/// How a labeling run went.
public struct LabelingResult: Sendable {
    /// Frames labelled over all movies.
    public var frames: Int
    /// Movies labelled.
    public var labeledMovies: Int
    /// Movies that could not be labelled, in order.
    public var failedMovies: [String]
    /// Wall time of the run.
    public var seconds: Double
    /// The run's failure when some movies could not be labelled, naming them.
    public var failure: WorkbenchError? {
        guard !failedMovies.isEmpty else { return nil }
        return WorkbenchError(
            "\(failedMovies.count) of \(labeledMovies + failedMovies.count) movies could not be labelled: \(failedMovies.joined(separator: ", "))")
    }
}
