import ArgumentParser
import Workbench

extension SideBySideVideo.Stack: ExpressibleByArgument {}

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Play two to four videos phase by phase in one picture, every phase starting together.",
        discussion: """
            Each video's phases come from a phase file (JSON, written by `workbench phases` or by hand: {"video": \
            PATH, "order": [...], "phases": [{"label", "start", "end"}]}, times in seconds), given in the videos' \
            order: a file whose "video" names another of the videos is refused (--ignore-phase-video uses it with a \
            warning), one naming none of them is used as given. Or the phases are found by a per-frame model as \
            `workbench phases --model M --order ...` finds them. At every phase the video that finishes it first \
            holds its last frame until the others catch up; only the phases are shown. Two videos side by side \
            (--stack vertical: one above the other), three or four in a 2 x 2 grid. No sound unless --audio N takes \
            video N's.

            With a per-frame model instead of phase files (docs/phases-sync-trace.md builds one):
              workbench sync a.mp4 b.mp4 --model Swings.wbmodel --order address,backswing,impact,finish -o side.mp4

            Examples:
              workbench sync a.mp4 b.mp4 --phases a.json b.json -o side.mp4
              workbench sync a.mp4 b.mp4 --phases a.json b.json --stack vertical -o s.mp4
              workbench sync a.mp4 b.mp4 --phases a.json b.json --audio 1 -o side.mp4
              workbench sync a.mp4 b.mp4 c.mp4 --phases a.json b.json c.json -o grid.mp4
              workbench sync a.mp4 b.mp4 --phases a.json b.json --json -o side.mkv

            Docs: docs/phases-sync-trace.md
            """)

    @Argument(help: ArgumentHelp("Two to four videos, placed left to right (top to bottom).", valueName: "video"))
    var videos: [String]

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("One phase file per video, in the same order.", valueName: "file"))
    var phases: [String] = []

    @Flag(
        name: .long,
        help:
            "Use a phase file whose \"video\" names another of the videos anyway (for the video it is given for), with a warning; without it such a file is refused."
    )
    var ignorePhaseVideo = false

    @Option(name: .long, help: ArgumentHelp("Find the phases with this per-frame model instead (with --order).", valueName: "file"))
    var model: String?

    @Option(name: .long, help: ArgumentHelp("The phases' labels in their order, comma-separated (with --model).", valueName: "labels"))
    var order: String?

    @Option(name: .long, help: "horizontal (side by side) or vertical (above/below); 3 or 4 videos make a 2 x 2 grid.")
    var stack: SideBySideVideo.Stack = .horizontal

    @Option(name: .long, help: ArgumentHelp("Take the sound of video N (1 = the first).", valueName: "N"))
    var audio: Int?

    @Option(name: .shortAndLong, help: ArgumentHelp("The video to write (.mp4, .m4v, .mov or .mkv).", valueName: "file"))
    var output: String

    @Flag(help: "Print the plan as JSON: each phase's output frames, each video's frames and hold.")
    var json = false

    @OptionGroup var compute: ComputeOptions

    /// `--order` as labels.
    private var orderLabels: [String] { (order ?? "").split(separator: ",", omittingEmptySubsequences: false).map(String.init) }

    func validate() throws {
        guard (2...SyncPlan.maximumInputs).contains(videos.count) else {
            throw ValidationError("sync takes 2 to \(SyncPlan.maximumInputs) videos, got \(videos.count)")
        }
        if model != nil || order != nil {
            guard model != nil, order != nil, phases.isEmpty else { throw ValidationError("give --phases, or --model with --order, not both") }
            if ignorePhaseVideo { throw ValidationError("--ignore-phase-video goes with --phases") }
            if orderLabels.contains(where: \.isEmpty) {
                throw ValidationError("--order must list labels separated by commas, got \"\(order ?? "")\"")
            }
        } else if phases.count != videos.count {
            throw ValidationError("--phases needs one file per video: \(videos.count) videos, \(phases.count) phase files")
        }
        if let audio, !(1...videos.count).contains(audio) {
            throw ValidationError("--audio must name one of the videos, 1 to \(videos.count), got \(audio)")
        }
    }

    func run() throws {
        try Console.run {
            var request = SyncRequest(videos: videos, phaseFiles: phases, stack: stack, audioInput: audio.map { $0 - 1 }, output: output)
            request.acceptsOtherVideos = ignorePhaseVideo
            request.phaseModel = model.map { path in
                var phaseModel = SyncPhaseModel(model: .path(path), order: orderLabels)
                phaseModel.features = compute.settings(usesCache: false)
                return phaseModel
            }
            let bar = RenderProgress(label: output)
            let result = try SyncWorkflow.run(request) { event in
                if case .rendering(let fraction) = event { bar.update(fraction) }
            }
            bar.finish()
            for mismatch in result.phaseFileMismatches { Console.warn(SyncRendering.warning(mismatch)) }
            Console.output(json ? JSONLines.line(SyncRendering.Output(result, videos: videos)) : SyncRendering.text(result, videos: videos))
        }
    }
}
