/// A stretch of a video where one label is strongest on average.
public struct LabelWindow: Sendable, Equatable {
    /// The label.
    public let label: String
    /// Start of the window in seconds (the time of its first frame).
    public let start: Double
    /// End of the window in seconds (exclusive; at most the end of the last frame's slot).
    public let end: Double
    /// Mean probability of `label` over the window's frames.
    public let meanConfidence: Float
}

/// How one labeled video scores per label, for choosing highlights.
public struct VideoSummary: Sendable, Equatable {
    /// The video file.
    public let video: String
    /// Label names, in probability order.
    public let labels: [String]
    /// Per label, the mean probability over all frames.
    public let meanConfidence: [String: Float]
    /// The label with the highest mean probability (the first in `labels` order on a tie).
    public let topLabel: String
    /// Per label, its best window (see `init`).
    public let bestWindows: [String: LabelWindow]

    /// Summarises a video's labeled frames (time-ordered, not empty) with windows of `window` seconds.
    ///
    /// Windows start at each frame and cover the frames whose second is in [start, start + window). The frame
    /// spacing (first gap, or 1 s for a single frame) sets where the video ends, (last second + spacing); only
    /// windows that fit inside it are considered, unless the video is shorter than one window, in which case the
    /// whole video is the window. The best window has the highest mean probability; ties go to the earliest.
    public init(video: String, labels: [String], frames: [LabeledFrame], window: Double) {
        precondition(!frames.isEmpty, "VideoSummary needs at least one frame")
        precondition(window > 0, "window must be positive")
        self.video = video
        self.labels = labels
        var means: [String: Float] = [:]
        for (position, label) in labels.enumerated() {
            var sum = 0.0
            for frame in frames { sum += Double(frame.probabilities[position]) }
            means[label] = Float(sum / Double(frames.count))
        }
        meanConfidence = means
        var top = labels[0]
        for label in labels.dropFirst() where means[label]! > means[top]! { top = label }
        topLabel = top
        let spacing = frames.count > 1 ? frames[1].second - frames[0].second : 1
        let videoEnd = frames[frames.count - 1].second + spacing
        var windows: [String: LabelWindow] = [:]
        for (position, label) in labels.enumerated() {
            windows[label] = Self.bestWindow(
                label: label, position: position, frames: frames,
                window: window, videoEnd: videoEnd)
        }
        bestWindows = windows
    }

    /// Every start in one pass: a running prefix sum gives each window's total, and the window's end index only
    /// moves forward, so a long video with a long window (90,000 frames, half of them per window) takes
    /// milliseconds, not the minutes a sum per start took. Means are compared as `Float`, as they are reported, so
    /// equal means tie to the earliest; the winner's mean is then summed directly, frame by frame.
    private static func bestWindow(
        label: String, position: Int, frames: [LabeledFrame], window: Double,
        videoEnd: Double
    ) -> LabelWindow {
        var prefix = [0.0]
        prefix.reserveCapacity(frames.count + 1)
        for frame in frames { prefix.append(prefix[prefix.count - 1] + Double(frame.probabilities[position])) }
        var best: (range: Range<Int>, start: Double, end: Double, mean: Float)?
        var endIndex = 0
        for (startIndex, first) in frames.enumerated() {
            let start = first.second
            let fits = start + window <= videoEnd + 1e-9
            guard fits || startIndex == 0 else { break }
            let end = min(start + window, videoEnd)
            endIndex = max(endIndex, startIndex)
            while endIndex < frames.count, frames[endIndex].second < end - 1e-9 { endIndex += 1 }
            let count = max(endIndex - startIndex, 1)
            let mean = Float((prefix[startIndex + count] - prefix[startIndex]) / Double(count))
            if best == nil || mean > best!.mean {
                best = (startIndex..<(startIndex + count), start, end, mean)
            }
        }
        let winner = best!
        var sum = 0.0
        for frame in frames[winner.range] { sum += Double(frame.probabilities[position]) }
        return LabelWindow(
            label: label, start: winner.start, end: winner.end,
            meanConfidence: Float(sum / Double(winner.range.count)))
    }
}
