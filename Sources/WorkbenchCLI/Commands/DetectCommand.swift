import ArgumentParser
import Workbench

struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract:
            "Find people (or your own objects, --model) in pictures and videos: boxes, annotated copies, and clips recorded while someone is there.",
        discussion: """
            Pictures (JPEG, PNG, WebP, HEIC, TIFF, GIF or BMP files, or folders of them) print one line per box: \
            the picture, the label, the score and the box (centre x, centre y, width, height in pixels of the \
            picture as displayed), or the picture and "none". Videos (any file ffprobe finds a video stream in; not mixed with pictures in one \
            call) are sampled every --every seconds; a clip starts at the first sample with a person while no clip \
            is running and ends at the earliest of its start + --max-length, the last sample with a person + \
            --stop-after, and the end of the video. --tiles N also runs the detector on an N x N grid of overlapping \
            tiles, at 1 + N * N times the work.

            The detector is set-up's person detector (--detector FILE or $WORKBENCH_DETECTOR for another), or with \
            --model M.wbmodel a detector trained by workbench train on Create ML annotations, whose stored score \
            threshold is the default --min-score; --tta (with --model only) averages each picture with its mirror.

            Examples:
              workbench detect photo.jpg
              workbench detect photos/ --json
              workbench detect photos/ --min-score 0.6 --annotate boxes/
              workbench detect photo.jpg --tiles 2
              workbench detect movie.mp4 --clips clips/
              workbench detect movie.mp4 --json --every 0.5
              workbench detect movie.mp4 --html people.html --vtt people.vtt
              workbench detect movie.mp4 --annotate movie-boxes.mp4
              workbench detect photos/ --model Shapes.wbmodel --json
              workbench detect photos/ --model Shapes.wbmodel --tta
              workbench detect movie.mp4 --model Shapes.wbmodel --clips found/
              workbench detect photo.jpg --model Shapes.wbmodel --label disc

            Docs: docs/detect.md; --model: docs/train-detector.md
            """)

    @Argument(help: ArgumentHelp("Pictures, folders of pictures, or videos.", valueName: "input"))
    var inputs: [String]

    @Option(
        name: .long,
        help: ArgumentHelp("Report boxes scoring at least this, 0 to 1 (default: a --model's stored threshold, else 0.5).", valueName: "score"))
    var minScore: Double?

    @Option(name: .long, help: ArgumentHelp("Report only this label (the built-in detector knows person).", valueName: "label"))
    var label: String?

    @Option(name: .long, help: ArgumentHelp("Also run on an N x N grid of overlapping tiles (1: off), up to 8.", valueName: "n"))
    var tiles: Int = 1

    @Flag(help: "Pictures: one JSON array (Create ML's annotations); videos: one JSON line per video.")
    var json = false

    @Option(
        name: .long, help: ArgumentHelp("Copies with boxes: a folder for pictures, a file (or a folder for several) for videos.", valueName: "path"))
    var annotate: String?

    @Option(name: .long, help: ArgumentHelp("Seconds between sampled video frames, 0.001 to 86400.", valueName: "seconds"))
    var every: Double = 0.2

    @Option(name: .long, help: ArgumentHelp("Write each clip as an MP4 into this folder (created if missing).", valueName: "folder"))
    var clips: String?

    @Option(name: .long, help: ArgumentHelp("The longest a clip runs, in seconds.", valueName: "seconds"))
    var maxLength: Double = 10

    @Option(name: .long, help: ArgumentHelp("A clip stops this many seconds after the last sample with a person.", valueName: "seconds"))
    var stopAfter: Double = 5

    @Option(name: .long, help: ArgumentHelp("WebVTT captions of the stretches with someone (a folder for several videos).", valueName: "file"))
    var vtt: String?

    @Option(name: .long, help: ArgumentHelp("A page with each video's presence timeline.", valueName: "file"))
    var html: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The detector weights (default: $WORKBENCH_DETECTOR, else the installed share/workbench/ or set-up's models/ copy).", valueName: "path"))
    var detector: String?

    @Option(
        name: .long,
        help: ArgumentHelp("A detector model trained by workbench train on annotations, instead of the person detector.", valueName: "model"))
    var model: String?

    @Flag(
        name: .long,
        help:
            "With --model: run the model on each picture (frame, tile) and its mirror and average the two answers before the boxes are read; twice the network's work."
    )
    var tta = false

    @OptionGroup var compute: ComputeOptions

    /// Why the person detector refuses `--tta` (the library refuses `DetectionRequest.mirror` for it too).
    static let mirrorRefusal = "--tta (mirror averaging) is for detector models trained by workbench train (--model), not the person detector"

    func validate() throws {
        if let minScore, !(minScore.isFinite && (0...1).contains(minScore)) {
            throw ValidationError("--min-score must be between 0 and 1, got \(minScore)")
        }
        if model != nil && detector != nil { throw ValidationError("--model and --detector exclude each other") }
        if tta && model == nil { throw ValidationError(Self.mirrorRefusal) }
        guard (1...TileGrid.maximumTilesPerSide).contains(tiles) else {
            throw ValidationError("--tiles must be between 1 and \(TileGrid.maximumTilesPerSide), got \(tiles)")
        }
        guard every.isFinite, (SamplingLimits.shortestInterval...SamplingLimits.longestInterval).contains(every) else {
            throw ValidationError("--every must be between 0.001 and 86400 seconds, got \(every)")
        }
        guard maxLength.isFinite, maxLength > 0, maxLength <= SamplingLimits.longestInterval else {
            throw ValidationError("--max-length must be more than 0 and at most 86400 seconds, got \(maxLength)")
        }
        // Zero would end a clip at the sample that starts it: a clip of no length.
        guard stopAfter.isFinite, stopAfter > 0, stopAfter <= SamplingLimits.longestInterval else {
            throw ValidationError("--stop-after must be more than 0 and at most 86400 seconds, got \(stopAfter)")
        }
        if label?.isEmpty == true { throw ValidationError("--label must not be empty") }
    }

    func run() throws {
        try Console.run {
            var request = DetectionRequest(inputs: inputs)
            request.minimumConfidence = minScore.map(Float.init)
            (request.label, request.tilesPerSide, request.every) = (label, tiles, every)
            request.clipRule = PresenceClips.Rule(maximumLength: maxLength, stopAfter: stopAfter)
            (request.annotate, request.clips, request.vtt, request.html) = (annotate, clips, vtt, html)
            request.maximumPixels = compute.maxMegapixels * 1_000_000
            request.mirror = tta
            request.detector = model.map { .model(path: $0) } ?? .person(path: detector)
            request.threads = compute.threads ?? Parallel.coreCount
            let progress = DetectionProgress(json: json)
            try progress.finish(try DetectionWorkflow.run(request, events: progress.render))
        }
    }
}
