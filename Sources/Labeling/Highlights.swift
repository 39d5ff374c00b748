import Foundation
import ImageCodecs
import Video

/// How to pick the clips for one label.
public enum HighlightSelection: Sendable, Equatable {
    /// The label's best window from every video whose top label is that label, in the given video order.
    case videosWhereTopLabel
    /// The label's best window from the `count` videos with the highest mean confidence for it (best first;
    /// equal means keep the given order).
    case topVideos(count: Int)
}

/// One clip of a highlights reel with the score that chose it.
public struct HighlightClip: Sendable, Equatable {
    /// The video and the window cut from it.
    public let clip: Clip
    /// The label's mean probability over the window's frames (`LabelWindow.meanConfidence`), 0 to 1.
    public let score: Float

    /// A clip with its score.
    public init(clip: Clip, score: Float) {
        self.clip = clip
        self.score = score
    }
}

/// A highlights reel written: what it shows and how large it is, for the caller to list.
public struct HighlightReelResult: Sendable, Equatable {
    /// The label the clips show.
    public let label: String
    /// The reel written.
    public let output: String
    /// The reel's size in pixels: the one asked for, or the largest clip video's (`HighlightReel.defaultSize`).
    public let size: ImageSize
    /// The clips, in the reel's order.
    public let clips: [HighlightClip]
}

/// Chooses the clips of a highlights reel and has `Video.HighlightReel` cut and join them.
public enum Highlights {
    /// The clips for `label` from `summaries`, per `selection`, each with its window's score. Videos without that
    /// label give no clip.
    public static func choose(label: String, from summaries: [VideoSummary], selection: HighlightSelection) -> [HighlightClip] {
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
            summary.bestWindows[label].map {
                HighlightClip(clip: Clip(video: summary.video, start: $0.start, end: $0.end), score: $0.meanConfidence)
            }
        }
    }

    /// Writes `clips` of `label` as one reel at `output` (`HighlightReel.render`), `size` pixels (nil: the largest
    /// clip video's, never upscaled), and says what it wrote.
    public static func render(
        _ clips: [HighlightClip], label: String, to output: String, size: ImageSize? = nil,
        tools: ExternalTools? = nil
    ) throws(VideoError) -> HighlightReelResult {
        let written = try HighlightReel.render(clips: clips.map(\.clip), to: output, format: HighlightFormat(size: size), tools: tools)
        return HighlightReelResult(label: label, output: output, size: written, clips: clips)
    }
}
