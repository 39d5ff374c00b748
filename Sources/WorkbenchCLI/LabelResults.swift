import ArgumentParser
import Foundation
import Workbench

extension LabelCommand {
    /// The sampling and marker settings of this command line, as every task of a sharded run shares them.
    var labelSettings: LabelSettings { markerOptions.settings(every: every, framesPerSecond: fps) }

    /// `label --results DIR [--shard I/N]`: one result file per movie of the shard, a line on stderr for each.
    func runIntoResults(_ results: String) throws {
        try Console.run {
            let shard = try sharding.resolve() ?? .whole
            let classifier = try Classifier.load(path: model)
            let extractor = compute.extractor(backbone: classifier.backbone, usesCache: !cache.noCache)
            var progress: ProgressBar?
            let outcome = try ShardedLabeling.label(
                movies: movies, shard: shard, results: results, classifier: classifier, extractor: extractor,
                settings: labelSettings, events: { event in
                    switch event {
                    case .alreadyDone(let movie): Console.warn("\(movie.id): already done (\(movie.path))")
                    case .started(let movie): progress = ProgressBar(total: 0, label: movie.id)
                    case .progress(let done, let expected): progress?.update(completed: done, total: expected)
                    case .labeled(let movie, let markers, let frames, let resultPath):
                        progress?.finish()
                        Console.warn("\(movie.id): \(frames) frames, \(markers) markers → \(resultPath)")
                    case .skippedFrame(_, let reason): Console.warn("warning: \(reason) (frame skipped)")
                    case .failed(let movie, let error):
                        progress?.finish()
                        Console.warn("workbench: \(error) (movie \(movie.id) has no result)")
                    }
                })
            Console.warn("shard \(shard): \(outcome.labeled) labeled, \(outcome.alreadyDone) already done, "
                         + "\(outcome.failed) failed, of \(outcome.movies) movies")
            if outcome.failed > 0 { throw ExitCode(1) }
        }
    }
}

extension MarkerOptions {
    /// These marker options with the given sampling, as a sharded run's settings.
    func settings(every: Double, framesPerSecond: Double?) -> LabelSettings {
        var settings = LabelSettings()
        settings.every = every
        settings.framesPerSecond = framesPerSecond
        switch minConfidence {
        case .value(let value): settings.minimumConfidence = value
        case .auto: settings.minimumConfidence = nil
        }
        settings.fallbackLabel = fallback
        settings.smoothing = smooth
        settings.changesOnly = changesOnly
        return settings
    }
}

struct LabelMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Put the per-movie results of a sharded label run into the player's MovieData.json.",
        discussion: """
            Reads FOLDER (written by `workbench label ... --results FOLDER`, one task per shard) and inserts or \
            updates every movie's markers in one locked write, in the order the movies were given: the file is then \
            the same as after one `label --movie-data` per movie. Refuses, naming them, when movies have no result \
            yet; the file is then left as it was.

            Examples:
              workbench label merge results --movie-data MovieData.json
            """)

    @Argument(help: ArgumentHelp("The results folder of the run.", valueName: "folder"))
    var folder: String

    @Option(name: .long, help: ArgumentHelp("The player's file to update (created if missing).", valueName: "file"))
    var movieData: String

    /// Parses and runs `workbench label merge ARGUMENTS`, with help and usage errors as the other commands give
    /// them, and exits.
    static func runAsSubcommand(_ arguments: [String]) -> Never {
        if arguments.contains("--help") || arguments.contains("-h") {
            Foundation.exit((try? Console.run { Console.outputLine(WorkbenchCommand.helpMessage(for: Self.self)) }) == nil ? 1 : 0)
        }
        do {
            let command = try parse(arguments)
            try command.run()
            Foundation.exit(0)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            Console.warn("Error: \(message(for: error))")
            Console.warn("Usage: workbench label merge <folder> --movie-data <file>")
            Console.warn("  See 'workbench label merge --help' for more information.")
            Foundation.exit(exitCode(for: error).rawValue)
        }
    }

    func run() throws {
        try Console.run {
            let outcome = try ShardedLabeling.merge(results: folder, movieData: movieData)
            Console.warn("\(outcome.movies) movies, \(outcome.markers) markers merged into \(movieData)")
        }
    }
}
