import ExternalProcesses
import FileFormats
import Foundation

/// A review copy of a movie with its labels burned in: at each sampled frame, the label the player will show and
/// the network's confidence, in a box at the top left (ffmpeg's `drawtext`, driven by a `sendcmd` script so a
/// two-hour movie needs one filter, not thousands).
public enum AnnotatedVideo {
    /// The font drawtext uses: Debian's fonts-dejavu-core (installed by scripts/setup.sh).
    public static let defaultFont = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"

    /// One caption: from `second` on (until the next), `text` is shown.
    public struct Caption: Sendable, Equatable {
        public let second: Double
        public let text: String

        /// Makes a caption.
        public init(second: Double, text: String) {
            self.second = second
            self.text = text
        }
    }

    /// Writes `video` with `captions` burned in to `output` (H.264 with libx264 when ffmpeg has it, MPEG-4 Part 2
    /// otherwise; sound re-encoded as AAC when there is any). The file appears only when complete: ffmpeg writes a
    /// temporary file beside it, renamed at the end and removed on failure.
    public static func render(
        video: String, captions: [Caption], to output: String, font: String = defaultFont,
        tools: ExternalTools? = nil
    ) throws(VideoError) {
        guard !captions.isEmpty else { throw VideoError(.invalidArgument, path: output, reason: "no labels to burn in") }
        try VideoContainer.check(output: output)
        guard FileManager.default.isReadableFile(atPath: font) else {
            throw VideoError(.toolNotFound, path: font, reason: "font not found; install Debian's fonts-dejavu-core (scripts/setup.sh does)")
        }
        let resolvedTools: ExternalTools
        if let tools { resolvedTools = tools } else { resolvedTools = try ExternalTools.locate(for: video) }
        let probe = try VideoProbe.probe(path: video, tools: resolvedTools)
        var status = stat()
        if stat(output, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            // The copy is written beside the output and renamed over it: never over a device or a pipe.
            throw VideoError(.writeFailed, path: output, reason: "not a regular file (a review copy needs a file it can seek in)")
        }
        let folder = URL(fileURLWithPath: output).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw VideoError(.writeFailed, path: output, reason: "folder \(folder) does not exist")
        }
        let encoder = try HighlightReel.videoEncoder(tools: resolvedTools, subject: output)
        let workFolder = try TemporaryFolder.forRender(prefix: "workbench-annotate")
        defer { workFolder.remove() }
        let commandsPath = workFolder.file("captions.cmd")
        guard FileManager.default.createFile(atPath: commandsPath, contents: Data(commands(captions).utf8)) else {
            throw VideoError(.writeFailed, path: commandsPath, reason: "cannot write the caption commands")
        }
        let target = try RenderTarget(partialBeside: output, defaultEnding: "mp4")
        let fontSize = max(16, probe.height / 18)
        // The script by its name in the work folder ffmpeg runs in; the font through the one escaping of paths.
        let filter =
            "sendcmd=f=captions.cmd,drawtext=fontfile=\(FilterValue.escaped(font)):expansion=none:text=…:fontsize=\(fontSize)"
            + ":fontcolor=white:box=1:boxcolor=black@0.65:boxborderw=\(fontSize / 3):x=\(fontSize):y=\(fontSize)"
        var arguments = [
            "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-progress", "pipe:1", "-nostats", "-i", MediaPath.url(video),
            "-map", "0:v:0", "-vf", filter + ",format=yuv420p", "-c:v", encoder,
        ]
        arguments += encoder == "libx264" ? ["-preset", "veryfast", "-crf", "20"] : ["-q:v", "3"]
        arguments += probe.hasAudio ? ["-map", "0:a:0", "-c:a", "aac", "-b:a", "128k"] : []
        try FFmpegRun.run(
            tools: resolvedTools, arguments: arguments + target.arguments, subject: video, workingDirectory: workFolder.path,
            target: target, outputFrames: 0, what: "burn in the labels", progress: nil)
    }

    /// The `sendcmd` script: at each caption's time, `drawtext reinit text=…`.
    ///
    /// Two layers of quoting apply, inner first: drawtext's option string (`\` escapes; `'` and `:` are special)
    /// and sendcmd's argument token (`\` escapes; quotes, `,`, `;`, brackets and whitespace are special). Before
    /// both, a caption is made one drawable line (`drawable`).
    public static func commands(_ captions: [Caption]) -> String {
        captions.map { caption in
            let option = "text=" + escaped(drawable(caption.text), ["'", ":"])
            return String(format: "%.3f", max(0, caption.second)) + " drawtext reinit " + escaped(option, sendcmdSpecials) + ";\n"
        }.joined()
    }

    /// `text` with a backslash before every backslash and every character of `special`: one layer of ffmpeg's
    /// quoting (see `commands`).
    static func escaped(_ text: String, _ special: Set<Character>) -> String {
        var result = ""
        for character in text {
            if character == "\\" || special.contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// The characters a `sendcmd` argument token must escape.
    static let sendcmdSpecials: Set<Character> = ["'", ",", ";", "[", "]", " "]

    /// `text` as one line drawtext can show, the one form every burned-in text takes (label captions, detect's box
    /// captions, sync's phase names): line breaks, tabs and other blank control characters become spaces (sendcmd
    /// splits on a tab), every other control character U+FFFD, and format characters (Unicode category Cf: the bidi
    /// isolates, embeddings, overrides and marks, zero-width joiners and spaces, the soft hyphen, the byte-order
    /// mark) are dropped. drawtext has no bidi algorithm, and its font no glyph for them: each would be drawn as a
    /// box ("□Fish□"). Dropping them spoofs nothing, since drawtext lays every line out left to right whatever it
    /// holds; the subtitles and the pages, read by programs that do apply the bidi algorithm, keep them.
    static func drawable(_ text: String) -> String {
        var result = ""
        for character in text {
            if character.isNewline {
                result.append(" ")
                continue
            }
            for scalar in character.unicodeScalars {
                if scalar.properties.isWhitespace && DisplayText.isControl(scalar) {
                    result.append(" ")
                } else if DisplayText.isControl(scalar) {
                    result.append("\u{FFFD}")
                } else if scalar.properties.generalCategory == .format {
                    continue
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
