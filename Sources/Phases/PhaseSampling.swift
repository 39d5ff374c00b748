import FileFormats
import Foundation

/// How often `phases` classifies a video's frames, and whether its stated length can hold the phases at all: both
/// known from the video's probe before a frame is decoded.
public enum PhaseSampling {
    /// The default sampling's highest rate: every frame of a video up to 25 fps, every n-th frame above it, the
    /// smallest n that stays at or under 25 a second (a 60 fps video every third frame, 30 fps every second).
    public static let maximumDefaultRate = 25.0
    /// The default shortest phase, in seconds.
    public static let defaultMinimumLength = 0.1

    /// The default seconds between classified frames for a video of `frameRate` fps: every frame up to
    /// `maximumDefaultRate`, else every n-th frame with n = ⌈frameRate / 25⌉; 1/25 s when the rate is unknown.
    public static func defaultInterval(frameRate: Double?) -> Double {
        guard let frameRate, frameRate.isFinite, frameRate > 0 else { return 1 / maximumDefaultRate }
        let step = max(1, (frameRate / maximumDefaultRate - 1e-6).rounded(.up))
        return step / frameRate
    }

    /// Refuses, as `.videoTooShort` naming `video`, a stated `duration` whose frames sampled every `every` seconds
    /// cannot hold `phaseCount` phases of `minimumSamples` samples each; an unknown length is let through (the
    /// samples decide later, `PhaseFinder.timeline`).
    public static func checkLength(
        duration: Double?, every: Double, phaseCount: Int, minimumLength: Double, minimumSamples: Int, video: String
    ) throws(PhaseError) {
        guard let duration, duration.isFinite else { return }
        let frames = WholeNumber.clamped(duration / every, .up, to: 0...Int.max) ?? 0
        guard frames < phaseCount * minimumSamples else { return }
        func seconds(_ value: Double) -> String { String(format: "%g", value) }
        throw PhaseError(
            .videoTooShort, path: video,
            reason: "too short for \(phaseCount) phases of at least \(seconds(minimumLength)) s each: "
                + "\(seconds(duration)) s sampled every \(seconds(every)) s gives \(frames) frames, "
                + "\(phaseCount * minimumSamples) needed (\(minimumSamples) a phase)")
    }
}
