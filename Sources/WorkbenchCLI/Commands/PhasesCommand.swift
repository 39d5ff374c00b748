import ArgumentParser
import Workbench

struct PhasesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phases",
        abstract: "Find where each phase of a fixed order (address, backswing, impact, finish) starts in a video.",
        discussion: """
            The model (any .wbmodel whose labels include the phases) classifies a frame every --every seconds \
            (default: every frame, at most 25 a second), and the phase starts that maximise the summed \
            log-probability under --order are found exactly, each phase at least --min-length long. Labels of the \
            model that are not in --order (before, after ...) may only open the video before the first phase and \
            close it after the last. Prints one line per phase: label, start, end (seconds), confidence. -o writes \
            {"video", "order", "phases": [{"label", "start", "end", "confidence"}]}, the file `sync --phases` also \
            accepts written by hand; --check FILE checks such a file instead (no model).

            A golf swing, with a model trained on frames of each phase (docs/phases-sync-trace.md builds one):
              workbench phases swing.mp4 --model Swings.wbmodel --order address,backswing,impact,finish \\
                  --every 0.04 --min-length 0.1 -o phases.json --vtt phases.vtt --html phases.html

            Examples:
              workbench phases movie.mp4 --model Drawings.wbmodel --order Mammal,Dessert
              workbench phases movie.mp4 --model Drawings.wbmodel --order Mammal -o p.json
              workbench phases movie.mp4 --model Drawings.wbmodel --order Dessert --json
              workbench phases movie.mp4 --check p.json

            Docs: docs/phases-sync-trace.md
            """)

    @Argument(help: ArgumentHelp("The video file.", valueName: "video"))
    var video: String

    @Option(name: .long, help: ArgumentHelp("The model file (a per-frame classifier whose labels include the phases).", valueName: "file"))
    var model: String?

    @Option(name: .long, help: ArgumentHelp("The phases' labels in their order, comma-separated.", valueName: "labels"))
    var order: String?

    @Option(name: .long, help: ArgumentHelp("Check a phase file written by hand against the video instead of finding phases.", valueName: "file"))
    var check: String?

    @Option(name: .long, help: ArgumentHelp("Seconds between classified frames (default: every frame, at most 25 a second).", valueName: "seconds"))
    var every: Double?

    @Option(name: .long, help: ArgumentHelp("The shortest a phase may be, in seconds.", valueName: "seconds"))
    var minLength: Double = PhaseSampling.defaultMinimumLength

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the phases as JSON to this file.", valueName: "file"))
    var output: String?

    @Flag(help: "Print the phases as JSON (the -o file's content) instead of lines.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Write WebVTT subtitles, one cue per phase.", valueName: "file"))
    var vtt: String?

    @Option(name: .long, help: ArgumentHelp("Write an HTML page: the phases against time, a picture at each start.", valueName: "file"))
    var html: String?

    @OptionGroup var compute: ComputeOptions

    /// The order as labels.
    private var orderLabels: [String] { (order ?? "").split(separator: ",", omittingEmptySubsequences: false).map(String.init) }

    func validate() throws {
        if check != nil {
            if model != nil || order != nil || every != nil || output != nil || vtt != nil || html != nil {
                throw ValidationError("--check reads a phase file: leave out --model, --order, --every, -o, --vtt and --html")
            }
            return
        }
        guard model != nil, let order else { throw ValidationError("give --model and --order (or --check FILE)") }
        if orderLabels.contains(where: \.isEmpty) {
            throw ValidationError("--order must list labels separated by commas, without empty ones, got \"\(order)\"")
        }
        if let every, !(every.isFinite && (SamplingLimits.shortestInterval...SamplingLimits.longestInterval).contains(every)) {
            throw ValidationError(
                "--every must be between \(SamplingLimits.shortestInterval) and \(SamplingLimits.longestInterval) seconds, got \(every)")
        }
        guard minLength.isFinite, (0...SamplingLimits.longestInterval).contains(minLength) else {
            throw ValidationError("--min-length must be between 0 and \(SamplingLimits.longestInterval) seconds, got \(minLength)")
        }
    }

    func run() throws {
        try Console.run {
            if let check {
                let result = try PhasesCheckWorkflow.run(PhasesCheckRequest(phases: check, video: video))
                render(result.timeline)
                return
            }
            guard let model else { return }
            var request = PhasesWorkflow.Request(video: video, order: orderLabels)
            request.every = every
            request.minimumLength = minLength
            request.output = output
            request.subtitles = vtt
            request.page = html
            request.model = model
            request.features = compute.settings(usesCache: false)
            let bar = ProgressBar(total: 0, label: video)
            let result = try PhasesWorkflow.run(request) { event in
                if case .progress(let done, let expected) = event { bar.update(completed: done, total: expected) }
            }
            bar.finish()
            render(result.timeline)
            Console.warn(PhasesRendering.summary(result, request: request))
        }
    }

    private func render(_ timeline: PhaseTimeline) {
        if json {
            Console.output(timeline.jsonText())
        } else {
            for line in PhasesRendering.lines(timeline) { Console.outputLine(line) }
        }
    }
}
