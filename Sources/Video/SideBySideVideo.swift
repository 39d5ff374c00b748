import FileFormats
import Foundation
import Phases

/// Two to four videos played phase by phase in one picture (`workbench sync`): every phase starts at the same
/// moment in all of them, the input that finishes a phase first holding its last frame of it (a `SyncPlan`).
///
/// One ffmpeg run, one decode per input. Each input's chain: `trim` to its first phase's first frame through its
/// last phase's end; `setpts` to a constant rate; `scale` to the common height; its play-position bar (a dark
/// grey track over the picture's bottom rows and a light grey fill sliding in as the input's own frame number
/// grows, `overlay` evaluated per frame); `fps` to the first input's rate when its own differs; one `loop` of one
/// frame per hold (the frame at the end of that phase, repeated); `tpad` + `trim` to the plan's exact length.
/// Because the bar is drawn before the holds, a holding input's bar stands still. Then `hstack`, `vstack` or
/// `xstack` (a 2 × 2 grid for 3 or 4 inputs, inputs padded to a common width), and one `drawtext` per phase, shown
/// during that phase's output frames, reading the phase name from a file in a temporary folder: a name from a
/// person's file never reaches the filter graph, where `'`, `:` or `,` would be syntax.
public enum SideBySideVideo {
    /// How the inputs are arranged.
    public enum Stack: String, Sendable, CaseIterable {
        /// Side by side, left to right (2 inputs); 3 or 4 inputs always make a 2 × 2 grid.
        case horizontal
        /// One above the other, top to bottom (2 inputs); 3 or 4 inputs always make a 2 × 2 grid.
        case vertical
    }

    /// The x264 preset of the output: fast to encode, at CRF 20 (visually clean for side-by-side review).
    public static let encoderPreset = "veryfast"
    /// The tallest picture height an input is scaled to.
    public static let maximumHeight = 1080

    /// One input: the video and what ffprobe says about it.
    public struct Input: Sendable {
        /// The video file.
        public var video: String
        /// Its probe (size, rate, audio).
        public var probe: VideoProbe
        /// Its video stream's frame count.
        public var frameCount: Int
        /// Its video stream's frame rate (the base rate ffprobe states, else the average).
        public var framesPerSecond: Double

        /// An input from its parts.
        public init(video: String, probe: VideoProbe, frameCount: Int, framesPerSecond: Double) {
            self.video = video
            self.probe = probe
            self.frameCount = frameCount
            self.framesPerSecond = framesPerSecond
        }
    }

    /// The geometry of the output: each input's picture size and the common height.
    public struct Layout: Sendable, Equatable {
        /// Every input's picture height: the smallest input's, at most `maximumHeight`, even.
        public let height: Int
        /// Each input's picture width at that height (even), in input order.
        public let widths: [Int]
        /// The play-position bar's height in pixels.
        public let barHeight: Int
        /// The phase name's font size.
        public let fontSize: Int

        /// The layout of `sizes` (upright width, height).
        public init(sizes: [(width: Int, height: Int)]) {
            let smallest = sizes.map(\.height).min() ?? 2
            height = max(2, min(smallest, SideBySideVideo.maximumHeight) / 2 * 2)
            widths = sizes.map { size in
                max(
                    2,
                    Int(
                        (Double(size.width) * Double(max(2, min(smallest, SideBySideVideo.maximumHeight) / 2 * 2))
                            / Double(max(1, size.height)) / 2).rounded()) * 2)
            }
            barHeight = max(4, height / 90 / 2 * 2)
            fontSize = max(12, height / 18)
        }
    }

    /// Probes each video and finds its frame count (the container's, else a packet count, else duration × rate).
    public static func probe(videos: [String], tools: ExternalTools) throws(VideoError) -> [Input] {
        var inputs: [Input] = []
        for video in videos {
            let probe = try VideoProbe.probe(path: video, tools: tools)
            guard let rate = probe.baseFrameRate ?? probe.averageFrameRate else {
                throw VideoError(.notAVideo, path: video, reason: "the video stream states no frame rate")
            }
            let counted = probe.frameCount ?? VideoProbe.countFrames(path: video, tools: tools)
            let estimated = (probe.streamDuration ?? probe.duration).flatMap { WholeNumber.rounding($0 * rate, .toNearestOrAwayFromZero) }
            guard let frameCount = counted ?? estimated, frameCount > 0 else {
                throw VideoError(.noFrames, path: video, reason: "the video stream has no frames")
            }
            inputs.append(Input(video: video, probe: probe, frameCount: frameCount, framesPerSecond: rate))
        }
        return inputs
    }

    /// Renders `plan` over `inputs` (in the plan's input order) to `output`: H.264 (libx264 at `encoderPreset`,
    /// CRF 20; MPEG-4 Part 2 where ffmpeg lacks libx264), the first input's frame rate, no sound unless
    /// `audioInput` (0-based) names an input with sound, whose sound then plays with its own pictures and is
    /// silent during its holds (AAC). `progress` gets the fraction of output frames encoded.
    public static func render(
        plan: SyncPlan, inputs: [Input], stack: Stack, audioInput: Int?, to output: String,
        font: String = AnnotatedVideo.defaultFont, tools: ExternalTools,
        progress: ((Double) -> Void)? = nil
    ) throws(VideoError) {
        guard inputs.count == plan.inputFramesPerSecond.count else {
            throw VideoError(.invalidArgument, path: output, reason: "the plan has \(plan.inputFramesPerSecond.count) inputs, not \(inputs.count)")
        }
        if let audioInput {
            guard inputs.indices.contains(audioInput) else {
                throw VideoError(.invalidArgument, path: output, reason: "there is no input \(audioInput + 1) to take the sound from")
            }
            guard inputs[audioInput].probe.hasAudio else {
                throw VideoError(
                    .invalidArgument, path: inputs[audioInput].video, reason: "has no sound to take",
                    hint: .chooseInputWithSound)
            }
        }
        guard FileManager.default.isReadableFile(atPath: font) else {
            throw VideoError(.toolNotFound, path: font, reason: "font not found; install Debian's fonts-dejavu-core (scripts/setup.sh does)")
        }
        let target = try RenderTarget(output: output)
        let encoder = try HighlightReel.videoEncoder(tools: tools, subject: output)
        let workFolder = try TemporaryFolder.forRender(prefix: "workbench-sync")
        defer { workFolder.remove() }
        let layout = Layout(sizes: inputs.map(\.probe.uprightSize))
        let names = phaseNameFiles(plan: plan)
        for (name, text) in names {
            guard FileManager.default.createFile(atPath: workFolder.file(name), contents: Data(text.utf8)) else {
                throw VideoError(.writeFailed, path: workFolder.file(name), reason: "cannot write the phase name")
            }
        }
        let graph = filterGraph(
            plan: plan, inputs: inputs, layout: layout, stack: stack, audioInput: audioInput,
            nameFiles: names.map(\.name), font: font)
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-progress", "pipe:1", "-nostats"]
        for input in inputs { arguments += ["-i", MediaPath.url(input.video)] }
        arguments += ["-filter_complex", graph, "-map", "[video]"]
        arguments += ["-c:v", encoder]
        arguments += encoder == "libx264" ? ["-preset", encoderPreset, "-crf", "20"] : ["-q:v", "3"]
        arguments += ["-r", rateText(plan.framesPerSecond)]
        if audioInput != nil { arguments += ["-map", "[audio]", "-c:a", "aac", "-b:a", "128k"] }
        arguments += target.arguments
        try FFmpegRun.run(
            tools: tools, arguments: arguments, subject: inputs[0].video, workingDirectory: workFolder.path, target: target,
            outputFrames: plan.outputFrameCount, what: "render the synced video", progress: progress)
    }

    /// The phase-name files: one per phase, named relative to the work folder, each holding the name as one drawable line
    /// (`AnnotatedVideo.drawable`: controls shown as spaces or U+FFFD, bidi and other format characters left out,
    /// so an override cannot reverse the name and drawtext draws no box for a character its font lacks).
    static func phaseNameFiles(plan: SyncPlan) -> [(name: String, text: String)] {
        plan.phases.enumerated().map { index, phase in
            ("phase-\(index).txt", AnnotatedVideo.drawable(phase.label))
        }
    }

    /// The filter graph (exposed for tests): see the type's description. Labels: `[video]`, and `[audio]` with
    /// `audioInput`. Nothing in it comes from a phase name; the names are in `nameFiles`, named relative to the work
    /// folder ffmpeg runs in, so nothing of the temporary folder's path is in the graph either.
    static func filterGraph(
        plan: SyncPlan, inputs: [Input], layout: SideBySideVideo.Layout, stack: Stack,
        audioInput: Int?, nameFiles: [String], font: String
    ) -> String {
        let outputRate = rateText(plan.framesPerSecond)
        let total = plan.outputFrameCount
        var chains: [String] = []
        let bar = layout.barHeight
        let gridWidth = layout.widths.max() ?? 2
        let padded = inputs.count > 2 || stack == .vertical
        for (index, input) in inputs.enumerated() {
            let segments = plan.phases.map { $0.segments[index] }
            let first = segments[0].firstFrame
            let end = segments[segments.count - 1].firstFrame + segments[segments.count - 1].frameCount
            let rate = plan.inputFramesPerSecond[index]
            let inputRate = rateText(rate)
            let width = layout.widths[index]
            var chain =
                "[\(index):v:0]trim=start_frame=\(first):end_frame=\(end),setpts=N/(\(inputRate)*TB),"
                + "scale=\(width):\(layout.height),setsar=1,format=yuv420p,"
                + "drawbox=x=0:y=ih-\(bar):w=iw:h=\(bar):color=0x404040:t=fill[picture\(index)];"
            chain += "color=c=0xC8C8C8:s=\(width)x\(bar):r=\(inputRate)[fill\(index)];"
            // The fill covers (frame number + 1) / frame count of the track: the input's own play position.
            chain +=
                "[picture\(index)][fill\(index)]overlay=x='-w+w*min(1,(t*\(inputRate)+\(first + 1))/\(input.frameCount))'"
                + ":y=H-\(bar):eval=frame:shortest=1"
            if abs(rate - plan.framesPerSecond) > 1e-9 * plan.framesPerSecond {
                chain += ",fps=\(outputRate)"
            }
            chain += ",setpts=N/(\(outputRate)*TB)"
            for (phase, segment) in zip(plan.phases, segments) where segment.holdFrameCount > 0 {
                // Earlier loops have already added their holds, so the phase's last frame is at its output position
                // S. `loop` compares `start` with the count of frames it has taken in, this one included, so the
                // frame at 0-based position S is `start=S+1` (ffmpeg 5.1; the pixel test pins it down).
                chain += ",loop=loop=\(segment.holdFrameCount):size=1:start=\(phase.outputFirstFrame + segment.outputFrameCount)"
            }
            chain += ",setpts=N/(\(outputRate)*TB),tpad=stop=-1:stop_mode=clone,trim=end_frame=\(total)"
            if padded { chain += ",pad=\(gridWidth):\(layout.height):(ow-iw)/2:0:black" }
            chain += "[cell\(index)]"
            chains.append(chain)
        }
        let cells = inputs.indices.map { "[cell\($0)]" }.joined()
        var composed: String
        switch (inputs.count, stack) {
        case (2, .horizontal): composed = cells + "hstack=inputs=2"
        case (2, .vertical): composed = cells + "vstack=inputs=2"
        default:
            let layoutText = ["0_0", "w0_0", "0_h0", "w0_h0"].prefix(inputs.count).joined(separator: "|")
            composed = cells + "xstack=inputs=\(inputs.count):layout=\(layoutText):fill=black"
            if inputs.count == 3 { composed += ",pad=\(2 * gridWidth):\(2 * layout.height):0:0:black" }
        }
        let margin = max(4, layout.fontSize / 2)
        for (phase, file) in zip(plan.phases, nameFiles) {
            composed +=
                ",drawtext=fontfile=\(FilterValue.escaped(font)):textfile=\(FilterValue.escaped(file)):expansion=none:fontsize=\(layout.fontSize)"
                + ":fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=\(max(2, layout.fontSize / 4)):x=\(margin):y=\(margin)"
                + ":enable='between(n,\(phase.outputFirstFrame),\(phase.outputFirstFrame + phase.outputFrameCount - 1))'"
        }
        composed += ",format=yuv420p[video]"
        chains.append(composed)
        if let audioInput {
            let rate = plan.inputFramesPerSecond[audioInput]
            let count = plan.phases.count
            var audio = "[\(audioInput):a:0]asplit=\(count)" + (0..<count).map { "[sound\($0)]" }.joined() + ";"
            for (number, phase) in plan.phases.enumerated() {
                let segment = phase.segments[audioInput]
                let start = Double(segment.firstFrame) / rate
                let end = Double(segment.firstFrame + segment.frameCount) / rate
                let length = Double(phase.outputFrameCount) / plan.framesPerSecond
                audio +=
                    "[sound\(number)]atrim=start=\(decimal(start)):end=\(decimal(end)),asetpts=PTS-STARTPTS,"
                    + "apad=whole_dur=\(decimal(length))[part\(number)];"
            }
            audio +=
                (0..<count).map { "[part\($0)]" }.joined() + "concat=n=\(count):v=0:a=1,"
                + "atrim=end=\(decimal(Double(total) / plan.framesPerSecond))[audio]"
            chains.append(audio)
        }
        return chains.joined(separator: ";")
    }

    /// A frame rate as ffmpeg reads it: a whole number, or the NTSC fractions exactly, else six decimals.
    static func rateText(_ rate: Double) -> String {
        if abs(rate - rate.rounded()) < 1e-9, let whole = WholeNumber.rounding(rate, .toNearestOrAwayFromZero) { return String(whole) }
        for base in [24.0, 30.0, 60.0, 120.0] where abs(rate - base * 1000 / 1001) < 1e-6 {
            return "\(Int(base * 1000))/1001"
        }
        return decimal(rate)
    }

    /// Fixed-point text (ffmpeg's parsers do not read exponents).
    static func decimal(_ value: Double) -> String { String(format: "%.6f", value) }
}
