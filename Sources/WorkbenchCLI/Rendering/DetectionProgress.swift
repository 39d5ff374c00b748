import ArgumentParser
import Foundation
import Workbench

/// Renders `detect`'s events: pictures' lines (or, with `--json`, one array at the end) and videos' lines (or one
/// JSON line per video) on stdout; a progress bar per video, skipped pictures and written files on stderr.
final class DetectionProgress {
    private let json: Bool
    private var bar: ProgressBar?
    /// What the page plays for the current video, for its JSON line.
    private var pageVideo: PageVideo?

    init(json: Bool) { self.json = json }

    func render(_ event: DetectionEvent) {
        switch event {
        case .skipped(let error): Console.warn("workbench: \(Console.failureText(error, worded: false)) (skipped)")
        case .picture(let picture): if !json { Console.output(DetectionLines.text(picture)) }
        case .videoStarted(let path, let expected): bar = ProgressBar(total: expected ?? 0, label: (path as NSString).lastPathComponent)
        case .progress(let done, let expected): bar?.update(completed: done, total: expected)
        case .pageVideo(let choice):
            bar?.finish()
            Console.warn(PageVideoRendering.line(choice))
            pageVideo = choice
        case .video(let video):
            bar?.finish()
            var object = DetectionJSON.Video(video)
            object.page = pageVideo.map(PageVideoRendering.Object.init)
            pageVideo = nil
            Console.output(json ? JSONLines.line(object) : DetectionLines.text(video))
        case .wrote(let path): Console.warn("written: \(path)")
        }
    }

    /// The pictures' JSON array, the summary line, and exit status 1 when a picture could not be read.
    func finish(_ outcome: DetectionResult) throws {
        if json, outcome.videos.isEmpty { Console.output(DetectionJSON.pictures(outcome.pictures)) }
        let count = outcome.videos.isEmpty ? outcome.pictures.count : outcome.videos.reduce(0) { $0 + $1.samples.count }
        let what = outcome.videos.isEmpty ? "picture" : "frame"
        Console.warn(
            "\(count) \(what)\(count == 1 ? "" : "s") in "
                + String(
                    format: "%.1f s (%.1f %@s/s)", outcome.seconds,
                    Double(count) / max(outcome.seconds, 1e-9), what))
        if outcome.failed > 0 {
            Console.warn("\(outcome.failed) of \(outcome.failed + outcome.pictures.count) pictures could not be read")
            throw ExitCode(1)
        }
    }
}

/// `detect`'s lines for people: tab-separated, one per box.
enum DetectionLines {
    /// `photo.jpg<TAB>person<TAB>0.91<TAB>412.5<TAB>230<TAB>80<TAB>190` per box, or `photo.jpg<TAB>none`.
    static func text(_ picture: PictureDetection) -> String {
        // A line feed or tab in a name would split the line or shift its fields: escaped here, not kept as layout.
        let path = DisplayText.terminal(picture.path), label = { (object: DetectedObject) in DisplayText.terminal(object.label) }
        guard !picture.objects.isEmpty else { return "\(path)\tnone\n" }
        return picture.objects.map { object in
            "\(path)\t\(label(object))\t\(String(format: "%.2f", object.confidence))\t"
                + [object.box.x, object.box.y, object.box.width, object.box.height].map(DetectionJSON.pixels).map { "\($0)" }.joined(separator: "\t")
                + "\n"
        }.joined()
    }

    /// The video's name, then each stretch with and without someone and each clip.
    static func text(_ video: VideoDetection) -> String {
        var text = "\(DisplayText.terminal(video.path))\n"
        var start: Double?, peak = 0, best: Float = 0
        func close(at end: Double) {
            guard let from = start else { return }
            text += String(format: "  %.1f–%.1f s\t", from, end) + "up to \(peak) seen, best \(String(format: "%.2f", best))\n"
            start = nil
        }
        for sample in video.samples {
            if sample.objects.isEmpty {
                close(at: sample.time)
                continue
            }
            if start == nil { (start, peak, best) = (sample.time, 0, 0) }
            peak = max(peak, sample.objects.count)
            best = max(best, sample.objects.map(\.confidence).max() ?? 0)
        }
        close(at: video.duration)
        if video.samples.allSatisfy({ $0.objects.isEmpty }) { text += "  nobody seen in \(video.samples.count) samples\n" }
        for (index, clip) in video.clips.enumerated() {
            text +=
                String(format: "  clip %d\t%.1f–%.1f s\t", index + 1, clip.clip.start, clip.clip.end) + clip.clip.ended.rawValue
                + (clip.file.map { "\t\(DisplayText.terminal($0))" } ?? "") + "\n"
        }
        return text
    }
}

/// `detect --json`: Create ML's annotation format for pictures, one object per video.
enum DetectionJSON {
    /// A pixel coordinate as written: to a hundredth of a pixel, so the JSON holds no float noise.
    static func pixels(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    struct Coordinates: Encodable {
        var x, y, width, height: Double
    }

    struct Annotation: Encodable {
        var label: String
        var confidence: Float
        var coordinates: Coordinates

        init(_ object: DetectedObject) {
            label = object.label
            confidence = object.confidence
            coordinates = Coordinates(
                x: pixels(object.box.x), y: pixels(object.box.y), width: pixels(object.box.width),
                height: pixels(object.box.height))
        }
    }

    struct Picture: Encodable {
        var image: String
        var annotations: [Annotation]
    }

    struct Sample: Encodable {
        var time: Double
        var annotations: [Annotation]
    }

    struct Clip: Encodable {
        var file: String?
        var start, end: Double
        var ended: String

        enum CodingKeys: String, CodingKey { case file, start, end, ended }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            // Always present: null when --clips was not given.
            try container.encode(file, forKey: .file)
            try container.encode(start, forKey: .start)
            try container.encode(end, forKey: .end)
            try container.encode(ended, forKey: .ended)
        }
    }

    struct Video: Encodable {
        var video: String
        var samples: [Sample]
        var clips: [Clip]
        /// With `--html`: what the page plays for this video.
        var page: PageVideoRendering.Object?

        init(_ result: VideoDetection) {
            video = result.path
            // Times to the millisecond: samples are n · every, computed in floating point.
            samples = result.samples.map { Sample(time: ($0.time * 1000).rounded() / 1000, annotations: $0.objects.map(Annotation.init)) }
            clips = result.clips.map {
                Clip(
                    file: $0.file, start: ($0.clip.start * 1000).rounded() / 1000, end: ($0.clip.end * 1000).rounded() / 1000,
                    ended: $0.clip.ended.rawValue)
            }
        }
    }

    /// The pictures as one JSON array, one picture per line, newline included.
    static func pictures(_ pictures: [PictureDetection]) -> String {
        let lines = pictures.map { picture in
            JSONLines.line(Picture(image: picture.path, annotations: picture.objects.map(Annotation.init))).dropLast()
        }
        return lines.isEmpty ? "[]\n" : "[\n" + lines.joined(separator: ",\n") + "\n]\n"
    }
}
