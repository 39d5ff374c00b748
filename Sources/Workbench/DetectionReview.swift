import Detection
import FileFormats
import Foundation
import ImageCodecs
import Labeling
import Reports
import Video

/// What `detect --html` and `--vtt` make of a video run: presence stretches (someone there or not), WebVTT cues
/// for the stretches with someone, and a page with each video's presence timeline, a framed picture at each change
/// and the video in a player (`Reports.LabelingReportPage`, the page of `label --html`).
///
/// Pictures are kept only where presence changes, at most `maximumPicturesPerVideo` small JPEGs a video with the
/// boxes drawn, so memory stays bounded however long the video is. Used from one thread.
final class DetectionReview {
    /// Pictures kept per video; later changes are drawn on the timeline without one.
    static let maximumPicturesPerVideo = 300
    /// Width of a change picture in pixels.
    static let pictureWidth = 192

    /// The label of the stretches with someone (`person`), and of those without (`no person`).
    let presenceLabel: String, absenceLabel: String
    /// Whether pictures are kept (only the page shows them).
    let keepsPictures: Bool
    private var pictures: [(second: Double, picture: Picture)] = []
    private var wasPresent: Bool?
    private var videos: [(result: VideoDetection, pictures: [(second: Double, picture: Picture)], pageFile: String)] = []

    init(presenceLabel: String, keepsPictures: Bool) {
        self.presenceLabel = presenceLabel
        self.absenceLabel = "no \(presenceLabel)"
        self.keepsPictures = keepsPictures
    }

    /// Starts a new video's pictures.
    func startVideo() {
        pictures = []
        wasPresent = nil
    }

    /// Keeps a small framed picture of `frame` when presence changes at it.
    func observe(frame: Frame, objects: [DetectedObject]) {
        let present = !objects.isEmpty
        defer { wasPresent = present }
        guard keepsPictures, present != wasPresent, pictures.count < Self.maximumPicturesPerVideo else { return }
        let image = frame.image
        guard image.width > 0, image.height > 0 else { return }
        let width = min(Self.pictureWidth, image.width)
        let height = max(1, Int((Double(image.height) * Double(width) / Double(image.width)).rounded()))
        var small = Resize.bicubic(
            image, region: PixelRegion(left: 0, top: 0, width: image.width, height: image.height),
            outputWidth: width, outputHeight: height)
        let scale = Double(width) / Double(image.width)
        for object in objects {
            let region = PixelRegion(
                left: Int((object.box.left * scale).rounded()), top: Int((object.box.top * scale).rounded()),
                width: max(1, Int((object.box.width * scale).rounded())),
                height: max(1, Int((object.box.height * scale).rounded())))
            RectangleOutline(region: region, thickness: 2, red: 255, green: 221, blue: 0).draw(on: &small)
        }
        if let picture = try? Picture.jpeg(small, name: "frame at \(frame.second) s") {
            pictures.append((frame.second, picture))
        }
    }

    /// Adds a finished video (after its last `observe`); the page's player plays `pageFile` (`PageVideo`), by
    /// default the video itself.
    func add(_ result: VideoDetection, pageFile: String? = nil) {
        videos.append((result, pictures, pageFile ?? result.path))
        pictures = []
    }

    /// The video's presence stretches, covering 0…duration: each starts at a sample where presence changes and
    /// ends at the next such sample. A stretch with someone has the mean of its samples' best scores.
    func stretches(_ result: VideoDetection) -> [LabelStretch] {
        var stretches: [LabelStretch] = []
        var start = 0.0, present: Bool?, scores: [Float] = []
        func close(at end: Double) {
            guard let present else { return }
            let mean = scores.isEmpty ? 0 : scores.reduce(0, +) / Float(scores.count)
            stretches.append(LabelStretch(start: start, end: end, label: present ? presenceLabel : absenceLabel, meanConfidence: mean))
        }
        for sample in result.samples {
            let isPresent = !sample.objects.isEmpty
            if isPresent != present {
                close(at: sample.time)
                start = stretches.isEmpty ? 0 : sample.time
                present = isPresent
                scores = []
            }
            if let best = sample.objects.map(\.confidence).max() { scores.append(best) }
        }
        close(at: max(result.duration, start))
        return stretches
    }

    /// WebVTT captions: one cue per stretch with someone, with its mean best score.
    func captions(_ result: VideoDetection) -> String {
        WebVTT.document(stretches: stretches(result).filter { $0.label == presenceLabel })
    }

    /// Writes the page atomically.
    func writePage(to path: String, every: Double, minimumConfidence: Float) throws(WorkbenchError) {
        try ModelReports.write(page(at: path, every: every, minimumConfidence: minimumConfidence), to: path)
    }

    /// The page, for writing at `path` (videos are referenced relative to its folder).
    func page(at path: String, every: Double, minimumConfidence: Float) -> String {
        let pageFolder = URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent()
        let count = videos.count
        let page = LabelingReportPage(
            title: "Where \(Markup.isolate(presenceLabel)) is seen",
            subtitle: [
                "\(Markup.count(count, "video")), one frame every \(Markup.number(every, decimals: 3)) s, "
                    + "boxes scoring at least \(Markup.number(Double(minimumConfidence), decimals: 2))."
            ],
            labels: [presenceLabel, absenceLabel], fallbackLabel: absenceLabel,
            movies: videos.map { video in
                let stretches = stretches(video.result)
                let changes = stretches.prefix(LabelingReview.maximumChangeCards).map { stretch in
                    LabelingReportPage.Change(
                        second: stretch.start, label: stretch.label,
                        picture: video.pictures.last { $0.second <= stretch.start + 1e-9 }?.picture)
                }
                var markers: [(second: Int, label: String)] = []
                for stretch in stretches {
                    let second = WholeNumber.saturating(stretch.start, .down)
                    if markers.last?.second == second { markers.removeLast() }
                    markers.append((second, stretch.label))
                }
                return LabelingReportPage.Movie(
                    path: video.result.path, source: LabelingReview.relativeURL(from: pageFolder, to: video.pageFile),
                    duration: video.result.duration, markers: markers,
                    stretches: stretches.map { .init(start: $0.start, end: $0.end, label: $0.label, meanConfidence: Double($0.meanConfidence)) },
                    changes: Array(changes), omittedChanges: max(0, stretches.count - LabelingReview.maximumChangeCards))
            })
        return page.html()
    }
}
