import Foundation

/// The bounds on sampling a movie, shared by the frame sources (which enforce them) and the command line (which
/// states them in its messages). They keep every frame time and every marker key finite and well inside `Int`.
public enum SamplingLimits {
    /// The shortest interval between samples: a millisecond, beyond the frame rate of any real video.
    public static let shortestInterval = 0.001
    /// The longest interval between samples: a day. Longer would give one frame of any movie, and frame numbers
    /// times it could leave the range of a marker key.
    public static let longestInterval = 86_400.0
    /// How far under a video's frame interval a sampling interval may be before it is refused: typed intervals
    /// are rounded (0.033 for 1/30 s) and rates are nominal (29.97 fps for 30), and sampling a little faster than
    /// the frames only repeats a few of them.
    public static let frameIntervalSlack = 0.95
    /// The most samples planned from a probed duration. A longer claimed duration (a broken header) is treated as
    /// unknown: the video is decoded in one piece until it really ends.
    public static let maximumPlannedSamples = 10_000_000
    /// The largest frame number a frame folder may use (nine digits): with the longest interval it is still a
    /// time whose whole seconds fit in `Int`.
    public static let largestFrameNumber = 999_999_999

    /// Checks a sampling interval in seconds; the error names `path`.
    public static func check(every: Double, path: String) throws(VideoError) {
        guard every.isFinite, every >= shortestInterval, every <= longestInterval else {
            throw VideoError(
                .invalidArgument, path: path,
                reason:
                    "the interval between frames must be between \(format(shortestInterval)) s and \(format(longestInterval)) s, got \(format(every))"
            )
        }
    }

    /// Checks a frame folder's frame rate; the error names `path`.
    public static func check(framesPerSecond: Double, path: String) throws(VideoError) {
        guard framesPerSecond.isFinite, framesPerSecond >= 1 / longestInterval, framesPerSecond <= 1 / shortestInterval else {
            throw VideoError(
                .invalidArgument, path: path,
                reason:
                    "frames per second must be between 1/\(format(longestInterval)) and \(format(1 / shortestInterval)), got \(format(framesPerSecond))"
            )
        }
    }

    /// Checks a sampling interval against a probed video: within the bounds, and not (much) faster than the
    /// video's own frame rate, which would only decode and classify the same frames again.
    /// A still picture is refused first (`VideoProbe.isStillPicture`): it has no time to sample.
    public static func check(every: Double, video probe: VideoProbe, path: String) throws(VideoError) {
        if probe.isStillPicture {
            throw VideoError(
                .stillPicture, path: path, reason: "is a picture (\(probe.formatName ?? "image")), not a video: it has no time to sample frames from")
        }
        try check(every: every, path: path)
        guard let rate = probe.frameRate, every < frameIntervalSlack / rate else { return }
        throw VideoError(
            .invalidArgument, path: path,
            reason: "sampling every \(format(every)) s is faster than the video's frame rate "
                + "(\(format(rate)) fps, a frame every \(format(1 / rate)) s); sample every \(format(1 / rate)) s or more")
    }

    /// The number of samples ⌈duration / every⌉ (at least 1), or nil when the duration is unknown or implausibly
    /// long for the interval.
    static func plannedSamples(duration: Double?, every: Double) -> Int? {
        guard let duration, duration.isFinite, duration > 0, every > 0 else { return nil }
        let samples = (duration / every).rounded(.up)
        guard samples.isFinite, samples <= Double(maximumPlannedSamples) else { return nil }
        return max(1, Int(samples))
    }

    /// Where a sampled video ends, from the frames decoded: its stated length (`probe.duration`) when that falls
    /// after the last sample and within one interval of it, where it is more exact than the samples; else one
    /// interval after the last sample. Sampling goes on to the last frame, so the true end lies in that interval,
    /// and a header claiming an hour for four seconds of frames is not believed.
    public static func videoEnd(lastSample: Double?, every: Double, stated: Double?) -> Double {
        let last = lastSample ?? 0
        if let stated, stated > last, stated <= last + every * (1 + 1e-9) { return stated }
        return last + every
    }

    /// Up to six significant digits, no exponent for ordinary values ("0.04", "86400", "1e-300").
    static func format(_ value: Double) -> String { String(format: "%g", value) }
}
