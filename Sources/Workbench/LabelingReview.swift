import ClassifierTraining
import Video
import Inference
import FileFormats
import Foundation
import ImageCodecs
import Labeling
import Models
import Reports
import TensorCore

/// What `label --html`, `--vtt` and `--annotate` make from a labeling run, gathered movie by movie: a page with
/// each movie's timeline, a picture at each change and a player; WebVTT subtitles; review copies with the labels
/// burned in.
///
/// Pictures are kept only where the label changes (before smoothing), at most `maximumPicturesPerMovie` small
/// JPEGs per movie, so memory stays bounded however long the movie is. Used from one thread.
public final class LabelingReview {
    /// Pictures kept per movie; later changes are still drawn on the timeline, without a picture.
    public static let maximumPicturesPerMovie = 400
    /// Change cards shown per movie (every stretch is still in the timeline and the table).
    public static let maximumChangeCards = 300
    /// Side of a change picture in pixels.
    public static let pictureSide = 112

    /// One labelled movie, with what the outputs need.
    struct Movie {
        var result: MovieLabeling.MovieResult
        var summary: VideoSummary?
        var duration: Double
        var markers: [Marker]
        var stretches: [LabelStretch]
        var pictures: [KeptPicture]
        var isVideo: Bool
        /// The file the page's player plays (`PageVideo`); nil plays the movie itself.
        var pageFile: String?
    }

    struct KeptPicture {
        var second: Double
        var label: String
        var picture: Picture
    }

    /// The model's labels, in probability order.
    public let labels: [String]
    /// How frames become markers (the same policy as the player file's).
    public let policy: MarkerPolicy
    /// Seconds between sampled frames.
    public let every: Double
    /// Whether pictures are kept (only the page shows them).
    public let keepsPictures: Bool
    /// The `--summary` window length, for the score table's column title.
    public var windowSeconds: Double = 5
    var movies: [Movie] = []
    private var collecting: [KeptPicture] = []
    private var previousLabel: String?

    /// The model's preprocessing: pictures show the crop the network saw.
    public let preprocessing: ImagePreprocessing

    /// A review of movies labelled with `labels` under `policy`, sampled every `every` seconds; `preprocessing` is
    /// the model's (`Classifier.backbone.preprocessing`).
    public init(labels: [String], policy: MarkerPolicy, every: Double, keepsPictures: Bool, preprocessing: ImagePreprocessing) {
        self.preprocessing = preprocessing
        self.labels = labels
        self.policy = policy
        self.every = every
        self.keepsPictures = keepsPictures
    }

    /// The observer to hand to `MovieLabeling.label` for the next movie: it keeps a small picture wherever the
    /// label (after the confidence fallback) changes. Nil when no pictures are kept.
    public func observerForNextMovie() -> ((_ frame: Frame, _ probabilities: [Float]) -> Void)? {
        collecting = []
        previousLabel = nil
        guard keepsPictures else { return nil }
        return { [self] frame, probabilities in keep(frame, probabilities) }
    }

    private func keep(_ frame: Frame, _ probabilities: [Float]) {
        let best = probabilities.indexOfMaximum
        let label = probabilities[best] < policy.minimumConfidence ? policy.fallbackLabel : labels[best]
        guard label != previousLabel else { return }
        previousLabel = label
        guard collecting.count < Self.maximumPicturesPerMovie else { return }
        let image = frame.image
        let crop =
            frame.isNetworkInput
            ? CenterCrop(left: 0, top: 0, side: min(image.width, image.height))
            : preprocessing.centerCrop(width: image.width, height: image.height)
        guard crop.side > 0,
            let picture = try? Picture.jpeg(
                Resize.bicubic(image, crop: crop, outputSide: Self.pictureSide),
                name: "frame at \(frame.second) s")
        else { return }
        collecting.append(KeptPicture(second: frame.second, label: label, picture: picture))
    }

    /// Adds a labelled movie (call after `MovieLabeling.label` returns for it). `summary` goes on the page when
    /// given. The movie's length comes from ffprobe for a video, from the frames for a folder.
    public func add(_ result: MovieLabeling.MovieResult, summary: VideoSummary?) {
        var isDirectory: ObjCBool = false
        let isVideo = FileManager.default.fileExists(atPath: result.path, isDirectory: &isDirectory) && !isDirectory.boolValue
        let spacing = result.frames.count > 1 ? result.frames[1].second - result.frames[0].second : every
        var duration = (result.frames.last?.second ?? 0) + spacing
        if isVideo, let tools = try? ExternalTools.locate(for: result.path),
            let probed = (try? VideoProbe.probe(path: result.path, tools: tools))?.duration
        {
            duration = SamplingLimits.videoEnd(lastSample: result.frames.last?.second, every: spacing, stated: probed)
        }
        let markers = policy.markers(result.frames)
        let stretches = LabelStretches.make(markers: markers, frames: result.frames, labels: labels, end: duration)
        movies.append(
            Movie(
                result: result, summary: summary, duration: duration, markers: markers, stretches: stretches,
                pictures: collecting, isVideo: isVideo))
        collecting = []
    }

    // MARK: The page

    /// The page, for writing at `pagePath` (movies are referenced relative to its folder).
    public func page(at pagePath: String, modelPath: String) -> String {
        let pageFolder = URL(fileURLWithPath: pagePath).standardizedFileURL.deletingLastPathComponent()
        // The fallback gets the neutral grey when it is not one of the model's labels and some stretch uses it.
        let used = Set(movies.flatMap { $0.stretches.map(\.label) })
        let fallback = !labels.contains(policy.fallbackLabel) && used.contains(policy.fallbackLabel) ? policy.fallbackLabel : nil
        var description = policy.changesOnly ? "A marker where the label changes" : "A marker every second"
        if policy.minimumConfidence > 0 {
            description +=
                ", '\(Markup.isolate(policy.fallbackLabel))' below confidence \(Markup.number(Double(policy.minimumConfidence), decimals: 2))"
        }
        if policy.smoothing > 1 { description += ", smoothed over \(policy.smoothing) s" }
        let page = LabelingReportPage(
            title: "Labels: \(Markup.isolate(ModelReportPage.fileName(modelPath)))",
            subtitle: [
                "Model \(Markup.isolate(modelPath)), \(Markup.count(movies.count, "movie")), one frame every \(Markup.number(every, decimals: 3)) s",
                description + ".",
            ],
            labels: labels + [fallback].compactMap { $0 }, fallbackLabel: fallback,
            movies: movies.map { movie in pageMovie(movie, pageFolder: pageFolder) })
        return page.html()
    }

    /// Writes the page atomically.
    public func writePage(to path: String, modelPath: String) throws(WorkbenchError) {
        try ModelReports.write(page(at: path, modelPath: modelPath), to: path)
    }

    private func pageMovie(_ movie: Movie, pageFolder: URL) -> LabelingReportPage.Movie {
        let changes = movie.stretches.prefix(Self.maximumChangeCards).enumerated().map { index, stretch in
            LabelingReportPage.Change(
                second: stretch.start, label: stretch.label,
                picture: picture(for: stretch, first: index == 0, in: movie.pictures))
        }
        let summary = movie.summary.map { summary in
            summary.labels.map { label in
                LabelingReportPage.SummaryRow(
                    label: label, meanConfidence: Double(summary.meanConfidence[label] ?? 0),
                    bestWindow: summary.bestWindows[label].map { ($0.start, $0.end, Double($0.meanConfidence)) },
                    isTop: label == summary.topLabel)
            }
        }
        return LabelingReportPage.Movie(
            path: movie.result.path, source: movie.isVideo ? Self.relativeURL(from: pageFolder, to: movie.pageFile ?? movie.result.path) : nil,
            duration: movie.duration, markers: movie.markers.map { ($0.second, $0.label) },
            stretches: movie.stretches.map { .init(start: $0.start, end: $0.end, label: $0.label, meanConfidence: Double($0.meanConfidence)) },
            changes: changes, omittedChanges: max(0, movie.stretches.count - Self.maximumChangeCards), summary: summary,
            windowSeconds: windowSeconds)
    }

    /// The picture for a stretch: the kept frame of its label nearest its start (smoothing can move a change a few
    /// seconds from where the raw label changed), else the last kept frame before it.
    private func picture(for stretch: LabelStretch, first: Bool, in pictures: [KeptPicture]) -> Picture? {
        if first { return pictures.first?.picture }
        let reach = max(1, Double(policy.smoothing)) + every
        let sameLabel = pictures.filter { $0.label == stretch.label && abs($0.second - stretch.start) <= reach }
        if let nearest = sameLabel.min(by: { abs($0.second - stretch.start) < abs($1.second - stretch.start) }) {
            return nearest.picture
        }
        return pictures.last { $0.second <= stretch.start + 1e-9 }?.picture
    }

    /// `path` relative to `folder`, percent-encoded per segment, for a `src` attribute.
    static func relativeURL(from folder: URL, to path: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let base = folder.resolvingSymlinksInPath().pathComponents
        var common = 0
        while common < min(target.count - 1, base.count), target[common] == base[common] { common += 1 }
        let segments = Array(repeating: "..", count: base.count - common) + target[common...]
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#")
        return segments.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }.joined(separator: "/")
    }

    // MARK: Subtitles and review copies

    /// Where each movie's file goes: `destination` itself for one movie (unless it is a folder), else
    /// `destination/<movie name>.<fileExtension>` (a number added when two movies share a name; `PerInputOutputs`).
    public func outputPaths(destination: String, fileExtension: String) throws(WorkbenchError) -> [String] {
        try PerInputOutputs.paths(inputs: movies.map(\.result.path), destination: destination, fileExtension: fileExtension)
    }

    /// Writes one WebVTT file per movie (see `outputPaths`); returns the paths written.
    public func writeSubtitles(to destination: String) throws(WorkbenchError) -> [String] {
        let paths = try outputPaths(destination: destination, fileExtension: "vtt")
        for (movie, path) in zip(movies, paths) {
            try WorkbenchError.passingOn(context: "cannot write the subtitles") {
                try AtomicFile.write(text: WebVTT.document(stretches: movie.stretches), to: path)
            }
        }
        return paths
    }

    /// Writes one review copy per movie with each sampled frame's label and confidence burned in (see
    /// `outputPaths`); returns the paths written. Only video files can be annotated.
    public func annotate(to destination: String) throws(WorkbenchError) -> [String] {
        if let folder = movies.first(where: { !$0.isVideo }) {
            throw WorkbenchError(path: folder.result.path, reason: "a burned-in review copy needs a video file, not a folder of frames")
        }
        let paths = try outputPaths(destination: destination, fileExtension: "mp4")
        for (movie, path) in zip(movies, paths) {
            let frameLabels = policy.frameLabels(movie.result.frames)
            let captions = zip(movie.result.frames, frameLabels).map { frame, label in
                let probability = labels.firstIndex(of: label).map { frame.probabilities[$0] } ?? frame.confidence
                return AnnotatedVideo.Caption(
                    second: frame.second, text: "\(DisplayText.isolated(label))  \(Int((Double(probability) * 100).rounded())) %")
            }
            try WorkbenchError.passingOn { try AnnotatedVideo.render(video: movie.result.path, captions: captions, to: path) }
        }
        return paths
    }
}
