import Foundation

/// A linear warm-up to the peak rate, then a cosine decay to zero over the remaining steps (Loshchilov & Hutter,
/// "SGDR", 2017, without restarts; Goyal et al., 2017, for the warm-up).
///
/// Step `s` counts from 0. During warm-up (`s < warmupSteps`) the factor is `(s + 1) / warmupSteps`, so the first
/// step already moves; after it, `½·(1 + cos(π·(s − warmupSteps) / (totalSteps − warmupSteps)))`, which is 1 at
/// the first step after warm-up and reaches 0 only past the last step. The factor multiplies each parameter
/// group's peak rate (head and backbone have their own).
public struct LearningRateSchedule: Sendable, Equatable {
    /// Steps of linear warm-up.
    public let warmupSteps: Int
    /// All steps of the run.
    public let totalSteps: Int

    /// A schedule over `totalSteps` steps whose first `warmupSteps` warm up (clamped to `0...totalSteps`).
    public init(warmupSteps: Int, totalSteps: Int) {
        precondition(totalSteps >= 0, "LearningRateSchedule: negative step count")
        self.totalSteps = totalSteps
        self.warmupSteps = min(max(0, warmupSteps), totalSteps)
    }

    /// The factor of the peak rate at step `step` (0-based), in `(0, 1]` for steps within the run.
    public func factor(atStep step: Int) -> Double {
        if step < warmupSteps { return Double(step + 1) / Double(warmupSteps) }
        let decaySteps = totalSteps - warmupSteps
        guard decaySteps > 0 else { return 1 }
        let progress = Double(step - warmupSteps) / Double(decaySteps)
        return 0.5 * (1 + cos(Double.pi * min(1, progress)))
    }
}
