/// A stretch of a movie that carries one label: from `start` up to (not including) `end`, in seconds.
public struct LabelStretch: Sendable, Equatable {
    public let start: Double
    public let end: Double
    public let label: String
    /// Mean over the stretch's frames of the label's probability (of the top probability for a label the model
    /// does not have, such as the fallback); 0 when no frame falls inside.
    public let meanConfidence: Float

    /// Makes a stretch.
    public init(start: Double, end: Double, label: String, meanConfidence: Float) {
        self.start = start
        self.end = end
        self.label = label
        self.meanConfidence = meanConfidence
    }
}

/// Turns a movie's markers into stretches that cover it from 0 to its end, one per run of equal labels: what the
/// player shows from each marker on, for subtitles (`WebVTT`), timelines and review copies.
public enum LabelStretches {
    /// The stretches of `markers` (time-ordered) over a movie that ends at `end` seconds. The first stretch starts
    /// at 0; each later one where its marker is; consecutive markers with the same label merge. When `end` is not
    /// after the last marker (a rounded duration), the last stretch still lasts one second. `labels` are the model's
    /// labels, in the order of each frame's probabilities.
    public static func make(markers: [Marker], frames: [LabeledFrame], labels: [String], end: Double) -> [LabelStretch] {
        var starts: [(second: Double, label: String)] = []
        for marker in markers where starts.last?.label != marker.label {
            starts.append((starts.isEmpty ? 0 : Double(marker.second), marker.label))
        }
        guard !starts.isEmpty else { return [] }
        let finish = max(end, starts[starts.count - 1].second + 1)
        var stretches: [LabelStretch] = []
        var frameIndex = 0
        for (position, start) in starts.enumerated() {
            let stop = position + 1 < starts.count ? starts[position + 1].second : finish
            let labelIndex = labels.firstIndex(of: start.label)
            var sum = 0.0, count = 0
            while frameIndex < frames.count, frames[frameIndex].second < stop {
                let frame = frames[frameIndex]
                if frame.second >= start.second {
                    sum += Double(labelIndex.map { frame.probabilities[$0] } ?? frame.confidence)
                    count += 1
                }
                frameIndex += 1
            }
            stretches.append(
                LabelStretch(
                    start: start.second, end: stop, label: start.label,
                    meanConfidence: count > 0 ? Float(sum / Double(count)) : 0))
        }
        return stretches
    }
}
