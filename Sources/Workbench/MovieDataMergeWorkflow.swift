import Labeling

/// What `workbench label merge` is asked to do: fold a sharded run's results folder into the player's file.
public struct MovieDataMergeRequest: Sendable {
    /// The results folder of the run (`ShardedLabeling.ShardRequest.results`): its manifest and one result per movie.
    public var results: String
    /// The player's file to update, created when missing (the output).
    public var movieData: String

    /// A merge of `results` into `movieData`.
    public init(results: String, movieData: String) {
        self.results = results
        self.movieData = movieData
    }
}

/// What a merge reports as it goes: nothing (it reads the folder, then makes one locked write); the type keeps the
/// shape every job has.
public enum MovieDataMergeEvent: Sendable {}

/// What a merge wrote.
public struct MovieDataMergeResult: Sendable, Equatable {
    /// Movies inserted or updated.
    public var movies: Int
    /// Their markers, in total.
    public var markers: Int
}

/// `workbench label merge`: every result of a sharded labeling run (`ShardedLabeling`) into the player's file.
public enum MovieDataMergeWorkflow {
    /// Folds every result in `request.results` into `request.movieData`, in the run's movie order, in one write
    /// under the file's lock: the file is then what one `label --movie-data` per movie, in that order, would have
    /// made. Refuses, naming them, when movies have no result yet, and naming it and what differs when a result was
    /// made by another model or other settings than the run's; the player file is then untouched.
    public static func run(
        _ request: MovieDataMergeRequest, events: (MovieDataMergeEvent) -> Void = { _ in }
    ) throws(WorkbenchError) -> MovieDataMergeResult {
        try WritableOutput.checkConflicts(
            inputs: [request.results] + MovieResultFolder(path: request.results).listedFiles, outputs: [request.movieData])
        let collected: [MovieResultFolder.Result] = try WorkbenchError.passingOn {
            try MovieResultFolder(path: request.results).allResults().results
        }
        try WorkbenchError.passingOn {
            try MovieData.update(path: request.movieData, with: collected.map { MovieUpdate(id: $0.movie.id, markers: $0.markers) })
        }
        return MovieDataMergeResult(movies: collected.count, markers: collected.reduce(0) { $0 + $1.markers.count })
    }
}
