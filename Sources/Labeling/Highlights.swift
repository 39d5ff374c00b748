import Foundation
import Video

/// How to pick the clips for one label.
public enum HighlightSelection: Sendable, Equatable {
    /// The label's best window from every video whose top label is that label, in the given video order.
    case videosWhereTopLabel
    /// The label's best window from the `count` videos with the highest mean confidence for it (best first;
    /// equal means keep the given order).
    case topVideos(count: Int)
}

/// Chooses the clips of a highlights reel (`Video.HighlightReel` cuts and joins them).
public enum Highlights {
    /// The clips for `label` from `summaries`, per `selection`. Videos without that label give no clip.
    public static func choose(label: String, from summaries: [VideoSummary], selection: HighlightSelection) -> [Clip] {
        let candidates: [VideoSummary]
        switch selection {
        case .videosWhereTopLabel:
            candidates = summaries.filter { $0.topLabel == label }
        case .topVideos(let count):
            let scored = summaries.enumerated().compactMap { entry -> (Int, Float, VideoSummary)? in
                guard let mean = entry.element.meanConfidence[label] else { return nil }
                return (entry.offset, mean, entry.element)
            }
            let ordered = scored.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
            candidates = ordered.prefix(max(count, 0)).map(\.2)
        }
        return candidates.compactMap { summary in
            summary.bestWindows[label].map { Clip(video: summary.video, start: $0.start, end: $0.end) }
        }
    }
}
