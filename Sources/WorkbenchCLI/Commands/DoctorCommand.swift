import ArgumentParser
import Workbench

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check a dataset before training: copies and leaks between splits, pictures in the wrong folder, outliers.",
        discussion: """
            DATASET is a classifier dataset in any layout train reads ("Training Data/" and "Testing Data/", \
            train/ val/ test/, or label subfolders). Doctor computes (or reads from the cache) the features train \
            uses and finds: exact copies (the same bytes) and near-copies (features nearly equal: resized, \
            re-encoded, cropped, brightened, mirrored), called leaks when they sit in different splits; pictures \
            likely in the wrong folder, by confident learning on out-of-sample probabilities (train's own folds for \
            training pictures, the fitted head for testing ones), each with a suggested label; and outliers, far \
            from every other picture. Thresholds are relative to the dataset's own neighbour distances. Doctor \
            never changes the dataset.

            Examples:
              workbench doctor datasets/drawings
              workbench doctor datasets/drawings --json > findings.json
              workbench doctor datasets/drawings --html Drawings-explore.html
              workbench doctor "Training Data" --test "Testing Data" --no-html
              workbench doctor datasets/drawings --move-to Set-aside --move copies,outliers
              workbench doctor --undo Set-aside/doctor-moves.json

            The text summary counts each kind of finding and shows the worst few; --json lists them all \
            (labelIssues, duplicates, outliers, labels); the page (default NAME-doctor.html in the working \
            directory) shows each kind as a gallery with a filter by label and kind.

            Doctor changes the dataset only with --move-to DIR: the files of the findings --move names (labels, \
            copies, outliers; all three by default) scoring at least --min-score (a label issue's confidence, a \
            copy's similarity, an outlier's score) move into DIR under their paths relative to the dataset; of a \
            copy, every file but the first (the earliest split's) moves. All move or none (a failure half-way puts \
            back the ones moved), and DIR/doctor-moves.json lists them for --undo. DIR may be neither inside the \
            dataset nor a file. train --exclude FILE leaves out the files doctor's JSON lists instead.

            Docs: docs/doctor.md
            """)

    @Argument(help: ArgumentHelp("The dataset folder.", valueName: "dataset"))
    var dataset: String?

    @Option(name: .long, help: ArgumentHelp("A testing folder (label subfolders).", valueName: "folder"))
    var test: String?

    @Option(name: .long, help: ArgumentHelp("A validation folder (label subfolders).", valueName: "folder"))
    var validation: String?

    @Option(name: .long, help: "Seed of the folds (train's default, so the folds are train's).")
    var seed: UInt64 = 42

    @Flag(help: "Print every finding as JSON instead of the summary.")
    var json = false

    @Flag(name: .customLong("out-of-sample"), help: .hidden)
    var outOfSample = false

    @Option(name: .long, help: ArgumentHelp("Write the Explore page here (default: NAME-doctor.html in the working directory).", valueName: "file"))
    var html: String?

    @Flag(name: .long, help: "Do not write the Explore page.")
    var noHtml = false

    @Option(name: .long, help: ArgumentHelp("Move the chosen findings' files into this folder (see below).", valueName: "folder"))
    var moveTo: String?

    @Option(name: .long, help: ArgumentHelp("With --move-to: the kinds whose files move, of labels, copies, outliers.", valueName: "kinds"))
    var move: String?

    @Option(name: .long, help: ArgumentHelp("With --move-to: only findings scoring at least this.", valueName: "score"))
    var minScore: Double?

    @Option(name: .long, help: ArgumentHelp("Put back the files an undo list (DIR/doctor-moves.json) names.", valueName: "file"))
    var undo: String?

    @OptionGroup var compute: ComputeOptions
    @OptionGroup var backboneOptions: BackboneOptions
    @OptionGroup var cache: CacheOptions

    func validate() throws {
        if html != nil && noHtml { throw ValidationError("--html and --no-html exclude each other") }
        if undo != nil {
            if dataset != nil || moveTo != nil { throw ValidationError("--undo takes no DATASET and no --move-to") }
            return
        }
        guard dataset != nil else { throw ValidationError("give DATASET, or --undo FILE") }
        if moveTo == nil && (move != nil || minScore != nil) { throw ValidationError("--move and --min-score need --move-to") }
        _ = try kinds()
    }

    /// `--move`'s kinds; all three when not given.
    private func kinds() throws -> Set<FindingKind> {
        guard let move else { return Set(FindingKind.allCases) }
        var kinds = Set<FindingKind>()
        for name in move.split(separator: ",", omittingEmptySubsequences: false) {
            guard let kind = FindingKind(rawValue: String(name)) else {
                throw ValidationError("--move takes labels, copies or outliers separated by commas, not '\(name)'")
            }
            kinds.insert(kind)
        }
        return kinds
    }

    func run() throws {
        try Console.run {
            if let undo {
                let moves = try DoctorWorkflow.undo(listPath: undo)
                Console.outputLine("\(moves.count) file(s) put back")
                return
            }
            var request = DoctorRequest(datasetPath: dataset ?? "")
            (request.testingPath, request.validationPath, request.seed) = (test, validation, seed)
            request.page = noHtml ? .none : html.map { .at($0) } ?? .besideDatasetName
            request.includesProbabilities = outOfSample
            if let moveTo { request.move = DoctorMove(folder: moveTo, kinds: try kinds(), minimumScore: minScore) }
            request.backbone = backboneOptions.source
            request.features = compute.settings(usesCache: !cache.noCache)
            let progress = DoctorProgress()
            let result = try DoctorWorkflow.run(request, events: progress.render)
            try DoctorRendering.render(result, json: json)
        }
    }
}
