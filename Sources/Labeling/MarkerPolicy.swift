import FileFormats

/// One marker of the player file: from `second` on, the scene is `label`.
public struct Marker: Sendable, Equatable {
    /// Whole second (the JSON key, as a decimal string).
    public let second: Int
    /// The label name.
    public let label: String

    /// Makes a marker.
    public init(second: Int, label: String) {
        self.second = second
        self.label = label
    }
}

/// Turns per-frame verdicts into the player's markers.
///
/// Steps, in order:
/// 1. **Fallback.** A frame whose confidence is below `minimumConfidence` gets `fallbackLabel` (it keeps its
///    confidence, which then counts for the fallback in tie-breaks).
/// 2. **Smoothing.** With `smoothing` N > 1, each frame takes the majority label of the frames whose second lies
///    in the centred, half-open window [s − N/2, s + N/2) — exactly N frames at one frame per second (for even N the
///    window reaches one frame further back than forward). Votes use the labels from step 1, never already
///    smoothed ones. Ties go to the label whose voting frames have the higher mean confidence; if still tied, to
///    the frame's own label when it is among the tied; otherwise to the tied label seen first in the window.
/// 3. **Keys.** A frame's key is ⌊second⌋. When several frames share a key (frames closer than a second), the
///    last one wins.
/// 4. **Changes only.** With `changesOnly`, a marker is kept only where the label differs from the previous
///    marker's; the first marker is always kept.
public struct MarkerPolicy: Sendable, Equatable {
    /// Below this confidence a frame is labeled `fallbackLabel` (0 keeps every verdict).
    public var minimumConfidence: Float
    /// The label for frames the classifier is unsure about ("Unsure" by default). Any name: one of the model's
    /// labels too (a frame below the minimum then counts as that label, whatever its verdict).
    public var fallbackLabel: String
    /// Majority-vote window in seconds; 0 or 1 turns smoothing off.
    public var smoothing: Int
    /// Keep only markers where the label changes.
    public var changesOnly: Bool

    /// Makes a policy; the defaults keep every verdict, unsmoothed, one marker per change.
    public init(
        minimumConfidence: Float = 0, fallbackLabel: String = "Unsure", smoothing: Int = 1,
        changesOnly: Bool = true
    ) {
        self.minimumConfidence = minimumConfidence
        self.fallbackLabel = fallbackLabel
        self.smoothing = smoothing
        self.changesOnly = changesOnly
    }

    /// Per-frame labels after fallback and smoothing (steps 1 and 2), one per frame, same order.
    public func frameLabels(_ frames: [LabeledFrame]) -> [String] {
        let raw = frames.map(unsmoothedLabel)
        guard smoothing > 1 else { return raw }
        let half = Double(smoothing) / 2
        var smoothed: [String] = []
        smoothed.reserveCapacity(frames.count)
        // Frames are in time order, so the window is a contiguous range tracked with two indices.
        var low = 0, high = 0
        for (index, frame) in frames.enumerated() {
            while low < frames.count, frames[low].second < frame.second - half { low += 1 }
            while high < frames.count, frames[high].second < frame.second + half { high += 1 }
            smoothed.append(Self.vote(labels: raw[low..<high], frames: frames[low..<high], current: raw[index]))
        }
        return smoothed
    }

    /// Whether the frame's own verdict is too unsure to keep (step 1): its confidence is below the minimum.
    public func isBelowMinimum(_ frame: LabeledFrame) -> Bool { frame.confidence < minimumConfidence }

    /// Step 1 alone: the fallback label for a frame below the minimum confidence, else its verdict.
    private func unsmoothedLabel(_ frame: LabeledFrame) -> String {
        isBelowMinimum(frame) ? fallbackLabel : frame.label
    }

    /// Each frame's label after steps 1 and 2, with what led to it, for showing the confidence that put a
    /// fallback or smoothed label there.
    public func decisions(_ frames: [LabeledFrame]) -> [FrameDecision] {
        zip(frames, frameLabels(frames)).map { frame, label in
            FrameDecision(
                label: label, verdict: frame.label, confidence: frame.confidence,
                isBelowMinimum: isBelowMinimum(frame), isSmoothed: label != unsmoothedLabel(frame))
        }
    }

    private static func vote(labels: ArraySlice<String>, frames: ArraySlice<LabeledFrame>, current: String) -> String {
        var counts: [String: Int] = [:]
        var confidenceSums: [String: Double] = [:]
        var firstSeen: [String] = []
        for (label, frame) in zip(labels, frames) {
            if counts[label] == nil { firstSeen.append(label) }
            counts[label, default: 0] += 1
            confidenceSums[label, default: 0] += Double(frame.confidence)
        }
        let mostVotes = counts.values.max() ?? 0
        var tied = firstSeen.filter { counts[$0] == mostVotes }
        if tied.count > 1 {
            let means = tied.map { confidenceSums[$0]! / Double(counts[$0]!) }
            let bestMean = means.max()!
            tied = zip(tied, means).filter { $0.1 == bestMean }.map(\.0)
        }
        if tied.count > 1, tied.contains(current) { return current }
        return tied.first ?? current
    }

    /// The markers for a movie, in time order.
    public func markers(_ frames: [LabeledFrame]) -> [Marker] {
        let labels = frameLabels(frames)
        var markers: [Marker] = []
        for (frame, label) in zip(frames, labels) {
            let key = WholeNumber.saturating(frame.second, .down)
            if let last = markers.last, last.second == key {
                markers[markers.count - 1] = Marker(second: key, label: label)
            } else {
                markers.append(Marker(second: key, label: label))
            }
        }
        guard changesOnly else { return markers }
        var changes: [Marker] = []
        for marker in markers where changes.last?.label != marker.label { changes.append(marker) }
        return changes
    }

    /// The markers as the player's JSON object: decimal second → label.
    public func markerObject(_ frames: [LabeledFrame]) -> [String: String] {
        var object: [String: String] = [:]
        for marker in markers(frames) { object[String(marker.second)] = marker.label }
        return object
    }
}

/// One frame's label under a `MarkerPolicy`, and why it is that label.
public struct FrameDecision: Sendable, Equatable {
    /// The label after fallback and smoothing.
    public let label: String
    /// The classifier's own label for the frame (its most probable one).
    public let verdict: String
    /// The verdict's probability: for a fallback label, the confidence that fell below the minimum.
    public let confidence: Float
    /// Whether `confidence` was below the policy's minimum, so the verdict gave way to the fallback label.
    public let isBelowMinimum: Bool
    /// Whether smoothing replaced the label the frame had after the fallback step.
    public let isSmoothed: Bool

    /// Makes a decision.
    public init(label: String, verdict: String, confidence: Float, isBelowMinimum: Bool, isSmoothed: Bool) {
        self.label = label
        self.verdict = verdict
        self.confidence = confidence
        self.isBelowMinimum = isBelowMinimum
        self.isSmoothed = isSmoothed
    }
}
