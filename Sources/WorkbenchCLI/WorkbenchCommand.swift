import ArgumentParser
import Foundation
import Workbench

@main
struct WorkbenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "workbench",
        abstract: "Train image classifiers from folders of pictures, on this machine.",
        discussion: """
            A pretrained EfficientNet-Lite0 turns each image into 1280 features; a classifier head is trained on \
            them.

            Examples:
              workbench train datasets/drawings
              workbench classify Drawings.wbmodel photo.jpg --top 3
              workbench evaluate Drawings.wbmodel "datasets/drawings/Testing Data"
              workbench label Drawings.wbmodel movie.mp4
              workbench detect photo.jpg --annotate boxes/
              workbench detect movie.mp4 --clips clips/
              workbench sync a.mp4 b.mp4 --phases a.json b.json -o side.mp4
              workbench trace a.mp4 --from 1 --points "20,100 60,20 100,100" -o flight.mp4
              workbench export Drawings.wbmodel --format onnx
              workbench inspect Drawings.wbmodel
              workbench features photos/ --json -o features.jsonl
              workbench slurm label Drawings.wbmodel clips/*.mp4 --tasks 2 --dry-run

            Docs: README.md, whose Documentation table lists the pages of docs/ (docs/train.md for train, \
            docs/detect.md for detect, docs/json-output.md for every --json, docs/troubleshooting.md ...).
            """,
        version: WorkbenchInfo.version,
        subcommands: [
            DoctorCommand.self, TrainCommand.self, EvaluateCommand.self, ClassifyCommand.self, LabelCommand.self, DetectCommand.self,
            PhasesCommand.self,
            SyncCommand.self, TraceCommand.self, ExportCommand.self, InspectCommand.self, FeaturesCommand.self, SlurmCommand.self,
        ]
    )

    /// A bare `workbench` names no command: it shows the help, on stderr, and fails like any other usage error.
    func run() throws {
        Console.warn(Self.helpMessage())
        throw ExitCode.validationFailure
    }

    static func main() {
        // A reader that goes away (`workbench classify ... | head -1`) must be a reportable EPIPE on write, not a
        // signal that kills the process mid-file.
        signal(SIGPIPE, SIG_IGN)
        // Likewise a file-size limit (`ulimit -f`) must be a reportable EFBIG, not a kill that leaves a partial file.
        signal(SIGXFSZ, SIG_IGN)
        // ^C, kill and a closed terminal stop the children, remove the partial files and temporary folders, and
        // exit with 128 + the signal's number (the children are in a process group of their own: ^C misses them).
        InterruptCleanup.installSignalHandlers()
        // swift-argument-parser looks for a subcommand only after its parent's own arguments, and `label` has
        // required ones (the model, the movies): `workbench label merge ...` goes to the merge command here.
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.count >= 2, arguments[0] == "label", arguments[1] == "merge" {
            LabelMergeCommand.runAsSubcommand(Array(arguments.dropFirst(2)))
        }
        do {
            var command = try parseAsRoot()
            try command.run()
            InterruptCleanup.holding { Foundation.exit(0) }
        } catch {
            exitReporting(error)
        }
    }

    /// What `ParsableCommand.exit(withError:)` does, except that a usage error goes through `Console.warn`: it can
    /// quote an argument (`Unknown option '--…'`), and an argument is text from outside that may hold escapes.
    private static func exitReporting(_ error: Error) -> Never {
        // A failure an interrupt caused (its children killed) is not reported: once the interrupt's cleanup holds
        // the registry, this waits until that cleanup exits with the signal's status.
        InterruptCleanup.holding {}
        let status = exitCode(for: error)
        let message = fullMessage(for: error)
        if status == .success {
            // --help and --version: the text is ours, and it goes to stdout as swift-argument-parser puts it.
            if !message.isEmpty { print(message) }
        } else if !message.isEmpty {
            Console.warn(escapingArguments(message))
        }
        Foundation.exit(status.rawValue)
    }

    /// A usage message with every argument it quotes (or the value after an option's `=`) in its terminal form
    /// when the argument holds a line feed: the message's own line breaks are swift-argument-parser's, an
    /// argument's would forge a line of its own. (`Console.warn` escapes tabs and the other controls.)
    static func escapingArguments(_ message: String, arguments given: [String] = Array(CommandLine.arguments.dropFirst())) -> String {
        let arguments = given.flatMap { argument in
            [argument] + argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().map(String.init)
        }
        var result = message
        for argument in arguments.sorted(by: { $0.utf8.count > $1.utf8.count }) where argument.unicodeScalars.contains("\n") {
            result = result.replacingOccurrences(of: argument, with: DisplayText.terminal(argument))
        }
        return result
    }
}
