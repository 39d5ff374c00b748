import ExternalProcesses
import FileFormats
import Foundation
import ImageCodecs

/// Boxes with labels drawn onto a video or a picture by ffmpeg: the annotated copies and clips of `detect`.
///
/// One filter graph serves a whole video: a fixed number of `drawbox` and `drawtext` filters ("slots", as many as
/// the most boxes one sample has), which a `sendcmd` script moves at each sample's time to that sample's boxes and
/// parks outside the frame when unused. Each sample's boxes thus stay on screen until the next sample.
public enum BoxOverlay {
    /// One box to draw, in pixels of the upright picture, with its caption (for example `person 0.87`).
    public struct Box: Sendable, Equatable {
        /// The box's edges.
        public var left: Double, top: Double, width: Double, height: Double
        /// The caption drawn above its top-left corner.
        public var text: String

        /// A box with its caption.
        public init(left: Double, top: Double, width: Double, height: Double, text: String) {
            self.left = left
            self.top = top
            self.width = width
            self.height = height
            self.text = text
        }
    }

    /// The boxes shown from `second` until the next sample.
    public struct Sample: Sendable, Equatable {
        /// Seconds from the start of the video.
        public var second: Double
        /// What to draw.
        public var boxes: [Box]

        /// A sample.
        public init(second: Double, boxes: [Box]) {
            self.second = second
            self.boxes = boxes
        }
    }

    /// The most boxes drawn at once; a sample with more (a crowd at a low `--min-score`) has its highest-scoring
    /// first ones drawn, as the caller orders them.
    public static let maximumSlots = 100
    /// The boxes' colour (the app's yellow).
    public static let color = "yellow"

    /// Writes `video` with each sample's boxes burned in to `output` (H.264 with libx264 when ffmpeg has it,
    /// MPEG-4 Part 2 otherwise; sound as AAC when there is any). With `start` and `end`, only that stretch is
    /// written (a clip), its boxes those of the samples from the last one at or before `start`. The file appears
    /// only when complete (a temporary file beside it, renamed at the end, removed on failure).
    public static func renderVideo(
        _ video: String, samples: [Sample], start: Double? = nil, end: Double? = nil, to output: String,
        font: String = AnnotatedVideo.defaultFont, tools: ExternalTools? = nil
    ) throws(VideoError) {
        try VideoContainer.check(output: output)
        let resolvedTools: ExternalTools
        if let tools { resolvedTools = tools } else { resolvedTools = try ExternalTools.locate(for: video) }
        let probe = try VideoProbe.probe(path: video, tools: resolvedTools)
        let encoder = try HighlightReel.videoEncoder(tools: resolvedTools, subject: output)
        let offset = start ?? 0
        // The sample showing at the clip's start is moved to its first frame; later ones keep their place.
        let shown = samples.filter { $0.second > offset }
        let held = samples.last { $0.second <= offset }.map { [Sample(second: offset, boxes: $0.boxes)] } ?? []
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"]
        if let start { arguments += ["-ss", String(format: "%.6f", start)] }
        arguments += ["-i", MediaPath.url(video)]
        if let start, let end { arguments += ["-t", String(format: "%.6f", max(0.001, end - start))] }
        try render(samples: held + shown, offset: offset, size: probe.uprightSize, output: output, font: font) { filter, target throws(VideoError) in
            var encoding = ["-map", "0:v:0", "-vf", filter.graph + ",format=yuv420p", "-c:v", encoder]
            encoding += encoder == "libx264" ? ["-preset", "veryfast", "-crf", "20"] : ["-q:v", "3"]
            encoding += probe.hasAudio ? ["-map", "0:a:0", "-c:a", "aac", "-b:a", "128k"] : []
            encoding += ["-progress", "pipe:1", "-nostats"]
            try FFmpegRun.run(
                tools: resolvedTools, arguments: arguments + encoding + target.arguments, subject: video,
                workingDirectory: filter.workFolder.path, target: target, outputFrames: 0, what: "draw the boxes",
                progress: nil)
        }
    }

    /// Writes `image` with `boxes` drawn to `output`: PNG when its name ends in `.png`, JPEG otherwise. `name`
    /// (the picture's own path) is what errors name.
    public static func renderPicture(
        _ image: RGBImage, boxes: [Box], name: String, to output: String,
        font: String = AnnotatedVideo.defaultFont, tools: ExternalTools? = nil
    ) throws(VideoError) {
        let resolvedTools: ExternalTools
        if let tools { resolvedTools = tools } else { resolvedTools = try ExternalTools.locate(for: name) }
        let pngBytes: [UInt8]
        do {
            pngBytes = try PNGEncoder.encode(image, name: name)
        } catch {
            throw VideoError(.writeFailed, path: name, reason: error.reason)
        }
        let isPNG = URL(fileURLWithPath: output).pathExtension.lowercased() == "png"
        try render(
            samples: [Sample(second: 0, boxes: boxes)], offset: 0, size: (image.width, image.height), output: output,
            font: font
        ) { filter, target throws(VideoError) in
            // The decoded picture (EXIF rotation applied) goes to ffmpeg losslessly, beside the caption commands.
            let source = filter.workFolder.file("picture.png")
            guard FileManager.default.createFile(atPath: source, contents: Data(pngBytes)) else {
                throw VideoError(.writeFailed, path: source, reason: "cannot write the picture for ffmpeg")
            }
            var arguments = [
                "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", "file:picture.png",
                "-vf", filter.graph, "-frames:v", "1", "-update", "1",
            ]
            arguments += isPNG ? ["-c:v", "png"] : ["-c:v", "mjpeg", "-q:v", "3", "-pix_fmt", "yuvj444p"]
            let result = try ToolRunner.run(
                resolvedTools.ffmpeg, arguments + [MediaPath.url(target.writtenPath)], subject: name,
                workingDirectory: filter.workFolder.path, deadline: ToolRunner.picture)
            guard result.status == 0 else {
                let detail = result.lastErrorLine.isEmpty ? "" : ": \(result.lastErrorLine)"
                throw VideoError(.toolFailed, path: name, reason: "ffmpeg could not draw the boxes (exit status \(result.status))\(detail)")
            }
            try target.finish()
        }
    }

    /// The filter graph of a render and the temporary folder its command script lives in.
    struct Filter {
        /// The `-vf` value.
        var graph: String
        /// A folder removed when the render ends, for the script and any other temporary input; ffmpeg runs in it
        /// and reads them by fixed relative names.
        var workFolder: TemporaryFolder
    }

    /// Prepares the command script and the filter, and runs `encode` to write the partial file beside `output` and
    /// rename it over `output` (the `RenderTarget`); the temporary folder is removed on every exit path.
    private static func render(
        samples: [Sample], offset: Double, size: (width: Int, height: Int), output: String, font: String,
        encode: (Filter, RenderTarget) throws(VideoError) -> Void
    ) throws(VideoError) {
        guard FileManager.default.isReadableFile(atPath: font) else {
            throw VideoError(.toolNotFound, path: font, reason: "font not found; install Debian's fonts-dejavu-core (scripts/setup.sh does)")
        }
        var status = stat()
        if stat(output, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            // Written beside the output and renamed over it: never over a device or a pipe.
            throw VideoError(.writeFailed, path: output, reason: "not a regular file (an annotated copy is renamed into place)")
        }
        let folder = URL(fileURLWithPath: output).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw VideoError(.writeFailed, path: output, reason: "folder \(folder) does not exist")
        }
        let workFolder = try TemporaryFolder.forRender(prefix: "workbench-boxes")
        defer { workFolder.remove() }
        let style = Style(width: size.width, height: size.height)
        let slots = min(maximumSlots, max(1, samples.map(\.boxes.count).max() ?? 0))
        let commandsPath = workFolder.file("boxes.cmd")
        guard FileManager.default.createFile(atPath: commandsPath, contents: Data(commands(samples, offset: offset, slots: slots, style: style).utf8))
        else {
            throw VideoError(.writeFailed, path: commandsPath, reason: "cannot write the box commands")
        }
        // The script by its name in the work folder ffmpeg runs in; the font through the one escaping of paths.
        var graph = "sendcmd=f=boxes.cmd"
        for slot in 0..<slots {
            graph += ",drawbox@b\(slot)=x=\(Style.parked):y=\(Style.parked):w=1:h=1:color=\(color):t=\(style.thickness)"
        }
        // Captions drawn last slot first, so the first (highest-scoring) box's caption lies on top.
        for slot in (0..<slots).reversed() {
            graph +=
                ",drawtext@t\(slot)=fontfile=\(FilterValue.escaped(font)):expansion=none:text=.:x=\(Style.parked):y=\(Style.parked)"
                + ":fontsize=\(style.fontSize):fontcolor=black:box=1:boxcolor=\(color):boxborderw=\(style.border)"
        }
        let target = try RenderTarget(partialBeside: output, defaultEnding: nil)
        do {
            try encode(Filter(graph: graph, workFolder: workFolder), target)
        } catch {
            target.abandon()
            throw error
        }
    }

    /// Sizes that suit the frame: text about a 36th of the frame's height, lines a 300th of its shorter side.
    struct Style {
        /// Where an unused slot waits: outside any frame.
        static let parked = -100_000
        var fontSize: Int, thickness: Int, border: Int

        init(width: Int, height: Int) {
            fontSize = max(12, height / 36)
            thickness = max(2, min(width, height) / 300)
            border = max(2, fontSize / 6)
        }
    }

    /// The `sendcmd` script: at each sample's time (less `offset`), each slot's box and caption moved to that
    /// sample's box, and the slots it leaves unused parked outside the frame (only those used just before, to keep
    /// the script short). Captions are quoted as `AnnotatedVideo.commands` quotes them.
    static func commands(_ samples: [Sample], offset: Double, slots: Int, style: Style) -> String {
        var script = ""
        var usedBefore = slots
        for sample in samples {
            let boxes = sample.boxes.prefix(slots)
            var parts: [String] = []
            for (slot, box) in boxes.enumerated() {
                let left = Int(box.left.rounded()), top = Int(box.top.rounded())
                let width = max(1, Int(box.width.rounded())), height = max(1, Int(box.height.rounded()))
                parts += ["drawbox@b\(slot) x \(left)", "drawbox@b\(slot) y \(top)", "drawbox@b\(slot) w \(width)", "drawbox@b\(slot) h \(height)"]
                // Above the box when there is room, else just inside its top edge.
                let textHeight = style.fontSize + 2 * style.border
                let textTop = top - textHeight >= 0 ? top - textHeight + style.border : max(0, top) + style.thickness + style.border
                let option =
                    "text=" + AnnotatedVideo.escaped(AnnotatedVideo.drawable(box.text), ["'", ":"])
                    + ":x=max(0,min(\(left + style.border),w-text_w-\(style.border))):y=\(textTop)"
                parts.append("drawtext@t\(slot) reinit " + AnnotatedVideo.escaped(option, AnnotatedVideo.sendcmdSpecials))
            }
            for slot in boxes.count..<max(boxes.count, usedBefore) {
                parts += ["drawbox@b\(slot) x \(Style.parked)", "drawtext@t\(slot) reinit x=\(Style.parked)"]
            }
            usedBefore = boxes.count
            guard !parts.isEmpty else { continue }
            script += String(format: "%.3f", max(0, sample.second - offset)) + " " + parts.map { "[enter] " + $0 }.joined(separator: ", ") + ";\n"
        }
        return script
    }
}
