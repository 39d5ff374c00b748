import ArgumentParser
import Foundation
import Workbench

struct LabelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label",
        abstract: "Label movies second by second: markers for the player's MovieData.json, video scores, highlight reels.",
        discussion: """
            A MOVIE is a video file (decoded by ffmpeg, one frame every --every seconds) or a folder of numbered \
            frames (1.jpg, 2.jpg, ... 10.jpg in numeric order; frame n is at second (n - 1) * every, or set --fps). \
            Prints one line per sampled second: second, label, confidence. --min-confidence auto takes the threshold \
            the model was trained for (train --target-precision).

            --movie-data FILE inserts or updates each movie's markers in the player's file as soon as that movie is \
            labelled; a movie's id there is its file name without extension (--id, --title, --description and \
            --poster for a single movie). --results DIR writes one result file per movie instead, and with --shard \
            I/N only that part of the movies is labelled; `workbench label merge DIR --movie-data MovieData.json` \
            puts them all into the player's file.

            Examples:
              workbench label Drawings.wbmodel movie.mp4
              workbench label Drawings.wbmodel movie.mp4 --movie-data MovieData.json --id 3
              workbench label Drawings.wbmodel clips/*.mp4 --movie-data MovieData.json
              workbench label Drawings.wbmodel movie.mp4 --min-confidence 0.6 --smooth 3
              workbench label Drawings.wbmodel movie.mp4 --changes-only
              workbench label Drawings.wbmodel movie.mp4 --tta
              workbench label Drawings.wbmodel frames/ --fps 2 --json
              workbench label Drawings.wbmodel clips/*.mp4 --summary --window 5
              workbench label Drawings.wbmodel clips/*.mp4 --highlights Mammal -o reel.mp4
              workbench label Drawings.wbmodel movie.mp4 --html review.html --vtt movie.vtt
              workbench label Drawings.wbmodel movie.mp4 --annotate movie-labelled.mp4
              workbench label Drawings.wbmodel clips/*.mp4 --results results --shard 0/2
              workbench label Drawings.wbmodel clips/*.mp4 --results results --shard 1/2
              workbench label merge results --movie-data MovieData.json

            Docs: docs/label.md; --results and --shard: docs/cluster.md
            """,
        subcommands: [LabelMergeCommand.self])

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Argument(help: ArgumentHelp("Video files or folders of numbered frames.", valueName: "movie"))
    var movies: [String]

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Seconds between sampled frames, 0.001 to 86400; for a video, not less than its frame interval.", valueName: "seconds"))
    var every: Double = 1

    @Option(name: .long, help: ArgumentHelp("Frame rate of a frames folder (overrides --every for folders), up to 1000.", valueName: "fps"))
    var fps: Double?

    @Flag(help: "Write one JSON object per movie: frames, markers, and the summary.")
    var json = false

    @OptionGroup(title: "Markers") var markerOptions: MarkerOptions
    @OptionGroup(title: "MovieData.json") var movieData: MovieDataOptions
    @OptionGroup(title: "Scores and highlights") var highlightOptions: HighlightOptions
    @OptionGroup(title: "Review") var review: ReviewOptions
    @OptionGroup(title: "Test-time augmentation") var testTime: TestTimeAugmentationOptions
    @OptionGroup var compute: ComputeOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup(title: "Sharded runs") var sharding: ShardOptions

    @Option(name: .long, help: ArgumentHelp("Write one result file per movie into this folder (see label merge).", valueName: "folder"))
    var results: String?

    func validate() throws {
        if results != nil || sharding.shard != nil {
            if movieData.movieData != nil {
                throw ValidationError(
                    "--movie-data is written by label merge in a sharded run: write --results DIR, then label merge DIR --movie-data FILE")
            }
        }
        if results != nil, json || highlightOptions.summary || highlightOptions.highlights != nil || review.isRequested {
            throw ValidationError("--results writes result files only: leave out --json, --summary, --highlights, --html, --vtt and --annotate")
        }
        try Self.validate(every: every, fps: fps, markers: markerOptions)
        let shortest = SamplingLimits.shortestInterval, longest = SamplingLimits.longestInterval
        if movieData.movieData != nil {
            if movies.count > 1, movieData.describesOneMovie {
                throw ValidationError(
                    "--id, --title, --description and --poster describe a single movie; with several, "
                        + "each movie's id in --movie-data is its file name without extension")
            }
        } else if movieData.describesOneMovie {
            throw ValidationError("--id, --title, --description and --poster go with --movie-data")
        }
        guard highlightOptions.window.isFinite, (shortest...longest).contains(highlightOptions.window) else {
            throw ValidationError(
                "--window must be between \(number(shortest)) and \(number(longest)) seconds, got \(number(highlightOptions.window))")
        }
        if highlightOptions.highlights != nil, highlightOptions.output == nil {
            throw ValidationError("--highlights needs -o, the reel to write (e.g. -o reel.mp4)")
        }
        if let count = highlightOptions.count, count < 1 { throw ValidationError("--count must be at least 1, got \(count)") }
        if highlightOptions.size != nil, highlightOptions.highlights == nil { throw ValidationError("--size goes with --highlights") }
        _ = try highlightOptions.reelSize()
        try review.validate(movieCount: movies.count)
    }

    /// The sampling and marker options, checked the same way here and in `workbench slurm label`.
    static func validate(every: Double, fps: Double?, markers markerOptions: MarkerOptions) throws {
        let shortest = SamplingLimits.shortestInterval, longest = SamplingLimits.longestInterval
        guard every.isFinite, (shortest...longest).contains(every) else {
            throw ValidationError(
                "--every must be between \(number(shortest)) and \(number(longest)) seconds (a millisecond to a day), got \(number(every))")
        }
        if let fps, !(fps.isFinite && (1 / longest...1 / shortest).contains(fps)) {
            throw ValidationError("--fps must be between 1/\(number(longest)) (a frame a day) and \(number(1 / shortest)), got \(number(fps))")
        }
        if case .value(let value) = markerOptions.minConfidence, !(0...1).contains(value) {
            throw ValidationError("--min-confidence must be between 0 and 1, got \(number(value)) (or auto: the model's threshold)")
        }
        guard (1...Int(longest)).contains(markerOptions.smooth) else {
            throw ValidationError("--smooth must be between 1 and \(Int(longest)) seconds (a day), got \(markerOptions.smooth)")
        }
        guard !(markerOptions.fallback?.isEmpty ?? false) else { throw ValidationError("--fallback must not be empty") }
    }

    /// A number as the messages show it: "0.001", "86400", "1e-300".
    private static func number(_ value: Double) -> String { String(format: "%g", value) }
    private func number(_ value: Double) -> String { Self.number(value) }

    func run() throws {
        if let results { return try labelIntoResults(results) }
        try Console.run {
            var request = try labelingRequest()
            request.features = compute.settings(usesCache: !cache.noCache)
            // A movie's lines get its name when the command line names several, sharded or not.
            let lines = LabeledMovieLines(
                json: json, changesOnly: markerOptions.changesOnly, showsSummary: highlightOptions.summary,
                window: highlightOptions.window, namesMovies: movies.count > 1)
            let progress = LabelingProgress(lines: lines)
            let outcome = try LabelingWorkflow.run(request, events: progress.render)
            Console.warn(LabelingProgress.summary(outcome))
            if let failure = outcome.failure { throw failure }
        }
    }

    /// `label --results DIR [--shard I/N]`: one result file per movie of the shard, a line on stderr for each.
    private func labelIntoResults(_ results: String) throws {
        try Console.run {
            let shard = try sharding.resolve() ?? .whole
            var request = ShardedLabeling.ShardRequest(movies: movies, shard: shard, results: results, model: .path(model))
            request.settings = labelSettings
            request.features = compute.settings(usesCache: !cache.noCache)
            let progress = ShardedLabelingProgress()
            let outcome = try ShardedLabeling.run(request, events: progress.render)
            Console.warn(ShardedLabelingProgress.summary(outcome, shard: shard))
            if outcome.failed > 0 { throw ExitCode(1) }
        }
    }

    /// The sampling and marker settings of this command line, as every task of a sharded run shares them.
    var labelSettings: LabelSettings {
        var settings = markerOptions.settings(every: every, framesPerSecond: fps)
        settings.testTimeAugmentation = testTime.tta
        return settings
    }

    /// The labeling run these options ask for.
    private func labelingRequest() throws -> LabelingRequest {
        var request = LabelingRequest(movies: movies, model: .path(model), settings: labelSettings)
        // A run into the player's file is never split (--shard is refused with --movie-data), whatever array job it
        // runs in.
        if movieData.movieData == nil, let shard = try sharding.resolve() { request.movies = InputSharding.movies(movies, shard: shard) }
        request.window = highlightOptions.window
        request.showsSummaries = highlightOptions.summary
        request.movieData = movieData.movieData.map {
            MovieDataEntry(path: $0, id: movieData.id, title: movieData.title, description: movieData.description, poster: movieData.poster)
        }
        if let label = highlightOptions.highlights, let output = highlightOptions.output {
            request.highlights = HighlightRequest(label: label, output: output, count: highlightOptions.count, size: try highlightOptions.reelSize())
        }
        request.review = ReviewFiles(html: review.html, vtt: review.vtt, annotate: review.annotate)
        return request
    }
}
