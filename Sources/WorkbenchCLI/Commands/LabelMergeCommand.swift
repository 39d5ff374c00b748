import ArgumentParser
import Foundation
import Workbench

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

            Docs: docs/cluster.md
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
            Console.warn(WorkbenchCommand.escapingArguments("Error: \(message(for: error))"))
            Console.warn("Usage: workbench label merge <folder> --movie-data <file>")
            Console.warn("  See 'workbench label merge --help' for more information.")
            Foundation.exit(exitCode(for: error).rawValue)
        }
    }

    func run() throws {
        try Console.run {
            let outcome = try MovieDataMergeWorkflow.run(MovieDataMergeRequest(results: folder, movieData: movieData))
            Console.warn("\(outcome.movies) movies, \(outcome.markers) markers merged into \(movieData)")
        }
    }
}
