import ArgumentParser
import Workbench

struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Find people (or your own objects, --model) in pictures and videos: boxes, annotated copies, and clips recorded while someone is there.",
        discussion: """
            Pictures (JPEG or PNG files, or folders of them) print one line per box: the picture, the label, the \
            score and the box (centre x, centre y, width, height in pixels of the picture as displayed, EXIF \
            rotation applied), or the picture and "none". --json prints one JSON array in Create ML's annotation \
            format: [{"image", "annotations": [{"label", "confidence", "coordinates": {"x", "y", "width", \
            "height"}}]}], x and y the box's centre. --annotate DIR writes a copy of each picture with its boxes \
            drawn.

            Videos (any file ffprobe finds a video stream in; pictures and videos are not mixed in one call) are \
            sampled every --every seconds. A clip starts at the first sample with a person while no clip is \
            running and ends at the earliest of its start + --max-length, the last sample with a person + \
            --stop-after, and the end of the video; the next clip can start at the next sample with a person. \
            --json prints one line per video: {"video", "samples": [{"time", "annotations"}], "clips": [{"file", \
            "start", "end", "ended"}]}, ended being max-length, no-person or end-of-video. --clips DIR writes each \
            clip as an H.264 MP4 with the boxes burned in (each sample's boxes held until the next); --annotate \
            writes the whole video so (a folder for several videos); --vtt captions the stretches with someone; \
            --html draws a presence timeline with a picture at each change.

            --tiles N also runs the detector on an N x N grid of tiles, for people too small for the whole frame: \
            each tile is 1/(N - (N - 1)/4) of the frame's width and height, so neighbours overlap by a quarter of \
            a tile. Tile boxes are moved into the frame; a box touching a tile edge inside the frame was cut by \
            the tile and is dropped when a box of another tile or of the whole frame covers half of it or more; \
            then boxes of one label overlapping a higher-scoring one by more than 0.5 (intersection over union) \
            are dropped. The work grows with 1 + N * N.

            The detector is set-up's SSDLite MobileNetV2 person detector (models/ssdlite-mobilenetv2-person.safetensors), \
            found as --backbone is: --detector FILE, else $WORKBENCH_DETECTOR, else the installed \
            share/workbench/ or the clone's models/ copy; or your own with --model M.wbmodel (workbench train on \
            Create ML annotations makes one), whose labels, boxes and stored score threshold (the default --min-score) \
            are used the same way for pictures, videos, --annotate and --clips. With --tta a model also runs on \
            each picture's mirror (each tile's, with --tiles), and the two answers are averaged before the boxes \
            are read (CenterNet's flip testing), for twice the work; the stored threshold was chosen without it, \
            and the exports do not carry it.

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
            """)

    @Argument(help: ArgumentHelp("Pictures, folders of pictures, or videos.", valueName: "input"))
    var inputs: [String]

    @Option(name: .long, help: ArgumentHelp("Report boxes scoring at least this, 0 to 1 (default: a --model's stored threshold, else 0.5).", valueName: "score"))
    var minScore: Double?

    @Option(name: .long, help: ArgumentHelp("Report only this label (the built-in detector knows person).", valueName: "label"))
    var label: String?

    @Option(name: .long, help: ArgumentHelp("Also run on an N x N grid of overlapping tiles (1: off), up to 8.", valueName: "n"))
    var tiles: Int = 1

    @Flag(help: "Pictures: one JSON array (Create ML's annotations); videos: one JSON line per video.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Copies with boxes: a folder for pictures, a file (or a folder for several) for videos.", valueName: "path"))
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

    @Option(name: .long, help: ArgumentHelp("The detector weights (default: $WORKBENCH_DETECTOR, else the installed share/workbench/ or set-up's models/ copy).", valueName: "path"))
    var detector: String?

    @Option(name: .long, help: ArgumentHelp("A detector model trained by workbench train on annotations, instead of the person detector.", valueName: "model"))
    var model: String?

    @Flag(name: .long, help: "With --model: run the model on each picture (frame, tile) and its mirror and average the two answers before the boxes are read; twice the network's work.")
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
