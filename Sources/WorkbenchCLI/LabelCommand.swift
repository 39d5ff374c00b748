import ArgumentParser
import Foundation
import Workbench

struct LabelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "label",
        abstract: "Label movies second by second: markers for the player's MovieData.json, video scores, highlight reels.",
        discussion: """
            A MOVIE is a video file (decoded by ffmpeg, one frame every --every seconds, never written to disk) or \
            a folder of numbered frames (1.jpg, 2.jpg, ... 10.jpg in numeric order; frame n is at second \
            (n - 1) * every, or set --fps; gaps in the numbers are gaps in time, and a folder with a frame 0 starts \
            there). Prints one line per sampled second: second, label, confidence. A movie that cannot be labelled \
            (not a video, no readable frames) is named and skipped and the others go on; the exit status is then 1. \
            --min-confidence auto takes the threshold the model was trained for (train --target-precision).

            --results DIR writes one result file per movie into DIR instead (a rerun skips the movies done), and \
            `workbench label merge DIR --movie-data MovieData.json` puts them all into the player's file; with \
            --shard I/N (or inside a Slurm array job) only that part of the movies is labeled, so the tasks of a \
            cluster job share the work (`workbench slurm label` writes and submits such a job). A movie's id is \
            its file name without extension.

            Examples:
              workbench label Drawings.wbmodel movie.mp4
              workbench label Drawings.wbmodel movie.mp4 --movie-data MovieData.json --id 3
              workbench label Drawings.wbmodel movie.mp4 --min-confidence 0.6 --smooth 3
              workbench label Drawings.wbmodel movie.mp4 --changes-only
              workbench label Drawings.wbmodel frames/ --fps 2 --json
              workbench label Drawings.wbmodel clips/*.mp4 --summary --window 5
              workbench label Drawings.wbmodel clips/*.mp4 --highlights Mammal -o reel.mp4
              workbench label Drawings.wbmodel movie.mp4 --html review.html --vtt movie.vtt
              workbench label Drawings.wbmodel movie.mp4 --annotate movie-labelled.mp4
              workbench label Drawings.wbmodel clips/*.mp4 --results results --shard 0/2
              workbench label Drawings.wbmodel clips/*.mp4 --results results --shard 1/2
              workbench label merge results --movie-data MovieData.json
            """,
        subcommands: [LabelMergeCommand.self])

    @Argument(help: ArgumentHelp("The model file.", valueName: "model"))
    var model: String

    @Argument(help: ArgumentHelp("Video files or folders of numbered frames.", valueName: "movie"))
    var movies: [String]

    @Option(name: .long, help: ArgumentHelp(
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
    @OptionGroup var compute: ComputeOptions
    @OptionGroup var cache: CacheOptions
    @OptionGroup(title: "Sharded runs") var sharding: ShardOptions

    @Option(name: .long, help: ArgumentHelp("Write one result file per movie into this folder (see label merge).", valueName: "folder"))
    var results: String?

    func validate() throws {
        if results != nil || sharding.shard != nil {
            if movieData.movieData != nil {
                throw ValidationError("--movie-data takes one movie; a sharded run writes --results DIR, then label merge DIR --movie-data FILE")
            }
        }
        if results != nil, json || highlightOptions.summary || highlightOptions.highlights != nil || review.isRequested {
            throw ValidationError("--results writes result files only: leave out --json, --summary, --highlights, --html, --vtt and --annotate")
        }
        try Self.validate(every: every, fps: fps, markers: markerOptions)
        let shortest = SamplingLimits.shortestInterval, longest = SamplingLimits.longestInterval
        if movieData.movieData != nil {
            guard movies.count == 1 else { throw ValidationError("--movie-data takes exactly one movie") }
            guard movieData.id != nil else { throw ValidationError("--movie-data needs --id, the movie's id in the file") }
        } else if movieData.id != nil || movieData.title != nil || movieData.description != nil || movieData.poster != nil {
            throw ValidationError("--id, --title, --description and --poster go with --movie-data")
        }
        guard highlightOptions.window.isFinite, (shortest...longest).contains(highlightOptions.window) else {
            throw ValidationError("--window must be between \(number(shortest)) and \(number(longest)) seconds, got \(number(highlightOptions.window))")
        }
        if highlightOptions.highlights != nil, highlightOptions.output == nil {
            throw ValidationError("--highlights needs -o, the reel to write (e.g. -o reel.mp4)")
        }
        if let count = highlightOptions.count, count < 1 { throw ValidationError("--count must be at least 1, got \(count)") }
        try review.validate(movieCount: movies.count)
    }

    /// The sampling and marker options, checked the same way here and in `workbench slurm label`.
    static func validate(every: Double, fps: Double?, markers markerOptions: MarkerOptions) throws {
        let shortest = SamplingLimits.shortestInterval, longest = SamplingLimits.longestInterval
        guard every.isFinite, (shortest...longest).contains(every) else {
            throw ValidationError("--every must be between \(number(shortest)) and \(number(longest)) seconds (a millisecond to a day), got \(number(every))")
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
        if let results { return try runIntoResults(results) }
        try Console.run {
            var request = LabelingRequest(movies: movies, settings: labelSettings)
            // One movie into the player's file is never split, whatever array job it runs in.
            if movieData.movieData == nil, let shard = try sharding.resolve() { request.movies = InputSharding.movies(movies, shard: shard) }
            request.window = highlightOptions.window
            request.showsSummaries = highlightOptions.summary
            if let path = movieData.movieData, let id = movieData.id {
                request.movieData = MovieDataEntry(path: path, id: id, title: movieData.title,
                                                   description: movieData.description, poster: movieData.poster)
            }
            if let label = highlightOptions.highlights, let output = highlightOptions.output {
                request.highlights = HighlightRequest(label: label, output: output, count: highlightOptions.count)
            }
            request.review = ReviewFiles(html: review.html, vtt: review.vtt, annotate: review.annotate)
            let classifier = try Classifier.load(path: model)
            let extractor = compute.extractor(backbone: classifier.backbone, usesCache: !cache.noCache)
            // A movie's lines get its name when the command line names several, sharded or not.
            let movieCount = movies.count
            var progress: ProgressBar?
            let outcome = try LabelingWorkflow.run(request, classifier: classifier, extractor: extractor) { event in
                switch event {
                case .started(let movie): progress = ProgressBar(total: 0, label: (movie as NSString).lastPathComponent)
                case .progress(let done, let expected): progress?.update(completed: done, total: expected)
                case .failed(_, let error):
                    progress?.finish()
                    Console.warn("workbench: \(error) (movie skipped)")
                case .finished: progress?.finish()
                case .warning(let line): Console.warn(line)
                case .labeled(let movie):
                    if json {
                        Console.outputLine(jsonObject(movie))
                    } else {
                        render(movie, movieCount: movieCount)
                    }
                case .movieDataWritten(let markers, let path, let id):
                    Console.warn("\(markers) markers written to \(path) (movie id \(id))")
                case .highlightsWritten(let clips, let label, let path):
                    Console.warn("\(clips) clips of '\(label)' joined into \(path)")
                case .reviewWritten(.page, let path): Console.warn("report written to \(path)")
                case .reviewWritten(.subtitles, let path): Console.warn("subtitles written to \(path)")
                case .reviewWritten(.annotatedCopy, let path): Console.warn("review copy written to \(path)")
                }
            }
            let labelled = outcome.labeledMovies
            Console.warn("\(outcome.frames) frames from \(labelled) movie\(labelled == 1 ? "" : "s") in "
                         + String(format: "%.1f s (%.1f frames/s)", outcome.seconds, Double(outcome.frames) / max(outcome.seconds, 1e-9)))
            if let failure = outcome.failure { throw failure }
        }
    }

    /// One line per frame (with --changes-only, per change), then the summary when asked for.
    private func render(_ movie: LabeledMovie, movieCount: Int) {
        if movieCount > 1 { Console.outputLine("\(movie.result.path)") }
        var previous: String?
        for (frame, decision) in zip(movie.result.frames, movie.decisions)
        where !(markerOptions.changesOnly && decision.label == previous) {
            Console.outputLine(String(format: "%6d  %@  ", Int(frame.second.rounded(.down)), decision.label) + explained(decision, minimumConfidence: movie.minimumConfidence))
            previous = decision.label
        }
        if highlightOptions.summary {
            let summary = movie.summary
            Console.outputLine()
            Console.outputLine(ReportRendering.table(
                header: ["label", "mean confidence", "best \(formatSeconds(highlightOptions.window)) window", "its mean"],
                rows: summary.labels.map { label in
                    let window = summary.bestWindows[label]
                    return [label == summary.topLabel ? "\(label) (top)" : label,
                            String(format: "%.3f", summary.meanConfidence[label] ?? 0),
                            window.map { "\(formatSeconds($0.start))–\(formatSeconds($0.end))" } ?? "-",
                            window.map { String(format: "%.3f", $0.meanConfidence) } ?? "-"]
                }))
        }
    }

    /// The confidence, and when the label is not the classifier's own verdict, why: "0.42 (cat, below 0.6)",
    /// "0.91 (cat, smoothed)". Below the minimum, enough decimals to show the confidence really is below it.
    private func explained(_ decision: FrameDecision, minimumConfidence: Double) -> String {
        guard decision.isBelowMinimum || decision.isSmoothed || decision.label != decision.verdict else {
            return String(format: "%.2f", decision.confidence)
        }
        let threshold = number(minimumConfidence)
        var confidence = String(format: "%.2f", decision.confidence)
        if decision.isBelowMinimum, let limit = Double(threshold) {
            for decimals in 2...9 {
                confidence = String(format: "%.\(decimals)f", decision.confidence)
                if let shown = Double(confidence), shown < limit { break }
            }
        }
        let reasons = [decision.verdict] + (decision.isBelowMinimum ? ["below \(threshold)"] : [])
            + (decision.isSmoothed ? ["smoothed"] : [])
        return "\(confidence) (\(reasons.joined(separator: ", ")))"
    }

    private func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }

    /// Each frame's "label" is the one the markers use (after --fallback and --smooth) and "confidence" its
    /// classifier verdict's; "verdict" appears when the two labels differ or the verdict fell below
    /// --min-confidence, and "threshold" (the minimum) in that last case.
    private func jsonObject(_ movie: LabeledMovie) -> String {
        let result = movie.result, markers = movie.markers, summary = movie.summary, minimumConfidence = movie.minimumConfidence
        let frames = zip(result.frames, movie.decisions).map { frame, decision in
            var fields = "\"second\":\(jsonNumber(frame.second)),\"label\":\(jsonString(decision.label)),\"confidence\":\(jsonNumber(decision.confidence))"
            if decision.isBelowMinimum || decision.label != decision.verdict {
                fields += ",\"verdict\":\(jsonString(decision.verdict))"
            }
            if decision.isBelowMinimum { fields += ",\"threshold\":\(jsonNumber(minimumConfidence))" }
            return "{\(fields)}"
        }
        let markerText = markers.keys.sorted { Int($0) ?? 0 < Int($1) ?? 0 }.map { "\(jsonString($0)):\(jsonString(markers[$0]!))" }
        let means = summary.labels.map { "\(jsonString($0)):\(jsonNumber(summary.meanConfidence[$0] ?? 0))" }
        let windows = summary.labels.compactMap { label in
            summary.bestWindows[label].map { "\(jsonString(label)):{\"start\":\(jsonNumber($0.start)),\"end\":\(jsonNumber($0.end)),\"meanConfidence\":\(jsonNumber($0.meanConfidence))}" }
        }
        return "{\"movie\":\(jsonString(result.path)),\"frames\":[\(frames.joined(separator: ","))],"
            + "\"markers\":{\(markerText.joined(separator: ","))},\"skippedFrames\":\(result.skippedFrames.count),"
            + "\"summary\":{\"topLabel\":\(jsonString(summary.topLabel)),\"meanConfidence\":{\(means.joined(separator: ","))},"
            + "\"bestWindows\":{\(windows.joined(separator: ","))}}}"
    }
}

struct ReviewOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Write an HTML page: a timeline and a player per movie.", valueName: "file"))
    var html: String?

    @Option(name: .long, help: ArgumentHelp("Write WebVTT subtitles, one cue per labelled stretch (a folder for several movies).", valueName: "file-or-folder"))
    var vtt: String?

    @Option(name: .long, help: ArgumentHelp("Write a review copy with labels and confidences burned in (a folder for several movies).", valueName: "file-or-folder"))
    var annotate: String?

    var isRequested: Bool { html != nil || vtt != nil || annotate != nil }

    func validate(movieCount: Int) throws {
        for (name, destination) in [("--vtt", vtt), ("--annotate", annotate)] {
            guard let destination else { continue }
            var isDirectory: ObjCBool = false
            let isFolder = FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory) && isDirectory.boolValue
            if movieCount > 1 && !isFolder { throw ValidationError("\(name) takes an existing folder when labelling several movies") }
            if !isFolder { try Console.checkWritable(destination) }
        }
        if let html { try Console.checkWritable(html) }
    }
}

/// `--min-confidence`: a number, or `auto` for the threshold stored in the model by `train --target-precision`.
enum ConfidenceSetting: ExpressibleByArgument, Equatable {
    case value(Double)
    case auto

    init?(argument: String) {
        if argument == "auto" { self = .auto } else if let value = Double(argument) { self = .value(value) } else { return nil }
    }

    var defaultValueDescription: String {
        switch self {
        case .value(let value): return "\(value)"
        case .auto: return "auto"
        }
    }
}

struct MarkerOptions: ParsableArguments {
    /// The label of frames below --min-confidence when --fallback is not given.
    static let defaultFallback = LabelSettings.defaultFallback

    @Option(name: .long, help: ArgumentHelp("Below this confidence (0 to 1) a frame's label is the --fallback label; auto takes the model's threshold (train --target-precision).", valueName: "p|auto"))
    var minConfidence: ConfidenceSetting = .value(0)

    @Option(name: .long, help: ArgumentHelp(
        "The label of frames below --min-confidence (default: \(defaultFallback)); any name, a model label too. "
            + "Such frames show the confidence that fell short: 'Unsure  0.42 (cat, below 0.6)'.",
        valueName: "label"))
    var fallback: String?

    @Option(name: .long, help: ArgumentHelp("Majority vote over a window of N seconds (1 to 86400), so labels don't flicker.", valueName: "n"))
    var smooth: Int = 1

    @Flag(name: .long, help: "A marker only where the label changes (default: one per second).")
    var changesOnly = false
}

struct MovieDataOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Insert or update this movie's markers in the player's MovieData.json.", valueName: "file"))
    var movieData: String?

    @Option(name: .long, help: "The movie's id in MovieData.json.")
    var id: String?

    @Option(name: .long, help: "The movie's title (kept when not given).")
    var title: String?

    @Option(name: .long, help: "The movie's description (kept when not given).")
    var description: String?

    @Option(name: .long, help: "The movie's poster image name (kept when not given).")
    var poster: String?
}

struct HighlightOptions: ParsableArguments {
    @Flag(name: .long, help: "Per video: mean confidence of each label, the top label, each label's best window.")
    var summary = false

    @Option(name: .long, help: ArgumentHelp("Window length for --summary and --highlights, 0.001 to 86400.", valueName: "seconds"))
    var window: Double = 5

    @Option(name: .long, help: ArgumentHelp("Cut the best window of each video whose top label is LABEL into one reel.", valueName: "label"))
    var highlights: String?

    @Option(name: .long, help: "With --highlights: the N videos that score highest on LABEL, whatever their top label.")
    var count: Int?

    @Option(name: .shortAndLong, help: ArgumentHelp("The highlight reel to write.", valueName: "file"))
    var output: String?
}
