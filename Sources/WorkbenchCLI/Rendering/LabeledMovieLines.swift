import Foundation
import Workbench

/// What `label` prints for a labelled movie on stdout: a line per sampled frame (per change with
/// --changes-only) and the summary table, or (`--json`) one JSON object per movie.
struct LabeledMovieLines {
    let json: Bool
    let changesOnly: Bool
    /// `--summary`: the table of mean confidences and best windows after the lines.
    let showsSummary: Bool
    /// The window the summary's best windows are.
    let window: Double
    /// Whether each movie's lines start with its path (several movies on the command line).
    let namesMovies: Bool

    func text(_ movie: LabeledMovie) -> String {
        if json { return JSONLines.line(MovieObject(movie)) }
        var text = namesMovies ? "\(movie.result.path)\n" : ""
        var previous: String?
        for (frame, decision) in zip(movie.result.frames, movie.decisions) where !(changesOnly && decision.label == previous) {
            text +=
                String(format: "%6d  %@  ", WholeNumber.saturating(frame.second, .down), decision.label)
                + Self.explained(decision, minimumConfidence: movie.minimumConfidence) + "\n"
            previous = decision.label
        }
        if showsSummary { text += "\n" + summaryTable(movie.summary) + "\n" }
        return text
    }

    /// The highlight reel's clips: each video, window and score, after the movies' lines; with `--json` one object
    /// `{"highlights": {"label", "output", "width", "height", "clips": [{"video", "start", "end", "score"}]}}`.
    func text(_ reel: HighlightReelResult) -> String {
        if json { return JSONLines.line(ReelObject(reel)) }
        let count = reel.clips.count
        return "\nhighlights of \(reel.label) in \(reel.output), \(reel.size.width) × \(reel.size.height), \(count) clip\(count == 1 ? "" : "s"):\n"
            + ReportRendering.table(
                header: ["video", "start–end", "score"],
                rows: reel.clips.map { clip in
                    [clip.clip.video, String(format: "%.1f–%.1f s", clip.clip.start, clip.clip.end), String(format: "%.3f", clip.score)]
                })
    }

    /// `label --json`'s line for the highlight reel.
    private struct ReelObject: Encodable {
        struct Clip: Encodable {
            var video: String
            var start: Double
            var end: Double
            var score: Float
        }

        struct Reel: Encodable {
            var label: String
            var output: String
            var width: Int
            var height: Int
            var clips: [Clip]
        }

        var highlights: Reel

        init(_ reel: HighlightReelResult) {
            highlights = Reel(
                label: reel.label, output: reel.output, width: reel.size.width, height: reel.size.height,
                clips: reel.clips.map { Clip(video: $0.clip.video, start: $0.clip.start, end: $0.clip.end, score: $0.score) })
        }
    }

    private func summaryTable(_ summary: VideoSummary) -> String {
        ReportRendering.table(
            header: ["label", "mean confidence", "best \(Self.seconds(window)) window", "its mean"],
            rows: summary.labels.map { label in
                let window = summary.bestWindows[label]
                return [
                    label == summary.topLabel ? "\(label) (top)" : label,
                    String(format: "%.3f", summary.meanConfidence[label] ?? 0),
                    window.map { "\(Self.seconds($0.start))–\(Self.seconds($0.end))" } ?? "-",
                    window.map { String(format: "%.3f", $0.meanConfidence) } ?? "-",
                ]
            })
    }

    /// The confidence, and when the label is not the classifier's own verdict, why: "0.42 (cat, below 0.6)",
    /// "0.91 (cat, smoothed)". Below the minimum, enough decimals to show the confidence really is below it.
    static func explained(_ decision: FrameDecision, minimumConfidence: Double) -> String {
        guard decision.isBelowMinimum || decision.isSmoothed || decision.label != decision.verdict else {
            return String(format: "%.2f", decision.confidence)
        }
        let threshold = String(format: "%g", minimumConfidence)
        var confidence = String(format: "%.2f", decision.confidence)
        if decision.isBelowMinimum, let limit = Double(threshold) {
            for decimals in 2...9 {
                confidence = String(format: "%.\(decimals)f", decision.confidence)
                if let shown = Double(confidence), shown < limit { break }
            }
        }
        let reasons =
            [decision.verdict] + (decision.isBelowMinimum ? ["below \(threshold)"] : [])
            + (decision.isSmoothed ? ["smoothed"] : [])
        return "\(confidence) (\(reasons.joined(separator: ", ")))"
    }

    /// "5 s", "2.5 s".
    private static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }

    /// `label --json`'s object for one movie. Each frame's "label" is the one the markers use (after --fallback
    /// and --smooth) and "confidence" its classifier verdict's; "verdict" appears when the two labels differ or the
    /// verdict fell below --min-confidence, and "threshold" (the minimum) in that last case. Markers come in
    /// numeric order of their second; labels in the model's order.
    private struct MovieObject: Encodable {
        struct FrameObject: Encodable {
            var second: Double
            var label: String
            var confidence: Float
            var verdict: String?
            var threshold: Double?
        }

        struct Window: Encodable {
            var start: Double
            var end: Double
            var meanConfidence: Float
        }

        struct Summary: Encodable {
            var topLabel: String
            var meanConfidence: OrderedMembers<Float>
            var bestWindows: OrderedMembers<Window>
        }

        var movie: String
        var frames: [FrameObject]
        var markers: OrderedMembers<String>
        var skippedFrames: Int
        var summary: Summary

        init(_ labeled: LabeledMovie) {
            let result = labeled.result, summary = labeled.summary
            movie = result.path
            frames = zip(result.frames, labeled.decisions).map { frame, decision in
                let differs = decision.isBelowMinimum || decision.label != decision.verdict
                return FrameObject(
                    second: frame.second, label: decision.label, confidence: decision.confidence,
                    verdict: differs ? decision.verdict : nil,
                    threshold: decision.isBelowMinimum ? labeled.minimumConfidence : nil)
            }
            markers = OrderedMembers(labeled.markers.keys.sorted { Int($0) ?? 0 < Int($1) ?? 0 }.map { ($0, labeled.markers[$0]!) })
            skippedFrames = result.skippedFrames.count
            self.summary = Summary(
                topLabel: summary.topLabel,
                meanConfidence: OrderedMembers(summary.labels.map { ($0, summary.meanConfidence[$0] ?? 0) }),
                bestWindows: OrderedMembers(
                    summary.labels.compactMap { label in
                        summary.bestWindows[label].map { (label, Window(start: $0.start, end: $0.end, meanConfidence: $0.meanConfidence)) }
                    }))
        }
    }
}
