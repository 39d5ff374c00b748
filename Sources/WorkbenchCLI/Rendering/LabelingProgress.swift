import Foundation
import Workbench

/// Renders `label`'s events: each movie's lines on stdout (`LabeledMovieLines`), a progress bar per movie, the
/// movies that failed and the files written on stderr.
final class LabelingProgress {
    private let lines: LabeledMovieLines
    private var bar: ProgressBar?
    /// What the page plays for each movie file, for `--json`'s page line.
    private var pageVideos: [PageVideo] = []

    init(lines: LabeledMovieLines) { self.lines = lines }

    func render(_ event: LabelingEvent) {
        switch event {
        case .started(let movie): bar = ProgressBar(total: 0, label: (movie as NSString).lastPathComponent)
        case .progress(let done, let expected): bar?.update(completed: done, total: expected)
        case .failed(_, let error):
            bar?.finish()
            Console.warn("workbench: \(Console.failureText(error, worded: false)) (movie skipped)")
        case .finished: bar?.finish()
        case .warning(let line): Console.warn(line)
        case .labeled(let movie): Console.output(lines.text(movie))
        case .movieDataWritten(let markers, let path, let id): Console.warn("\(markers) markers written to \(path) (movie id \(id))")
        case .highlightsWritten(let reel):
            Console.output(lines.text(reel))
            let count = reel.clips.count
            Console.warn(
                "\(count) clip\(count == 1 ? "" : "s") of '\(reel.label)' joined into \(reel.output) (\(reel.size.width) × \(reel.size.height))")
        case .pageVideo(let choice):
            Console.warn(PageVideoRendering.line(choice))
            pageVideos.append(choice)
        case .reviewWritten(.page, let path):
            if lines.json {
                Console.output(JSONLines.line(PageObject(page: .init(file: path, videos: pageVideos.map(PageVideoRendering.Object.init)))))
            }
            Console.warn("report written to \(path)")
        case .reviewWritten(.subtitles, let path): Console.warn("subtitles written to \(path)")
        case .reviewWritten(.annotatedCopy, let path): Console.warn("review copy written to \(path)")
        }
    }

    /// `label --json`'s line for the page: `{"page": {"file", "videos": [PageVideoRendering.Object]}}`.
    private struct PageObject: Encodable {
        struct Page: Encodable {
            var file: String
            var videos: [PageVideoRendering.Object]
        }

        var page: Page
    }

    /// "80 frames from 2 movies in 3.1 s (25.8 frames/s)".
    static func summary(_ outcome: LabelingResult) -> String {
        let labelled = outcome.labeledMovies
        return "\(outcome.frames) frames from \(labelled) movie\(labelled == 1 ? "" : "s") in "
            + String(format: "%.1f s (%.1f frames/s)", outcome.seconds, Double(outcome.frames) / max(outcome.seconds, 1e-9))
    }
}
