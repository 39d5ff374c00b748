import Foundation
import Workbench

/// What `features` says on stderr when it is done.
enum FeaturesRendering {
    /// "12 of 13 images embedded in 1.52 s (7.9 images/s), 1 failed", or, filling the cache, "13 of 13 images in
    /// the feature cache after 1.52 s".
    static func summary(_ outcome: FeaturesResult, fillsCache: Bool) -> String {
        let failed = outcome.failed > 0 ? ", \(outcome.failed) failed" : ""
        let seconds = String(format: "%.2f", outcome.seconds)
        if fillsCache { return "\(outcome.done) of \(outcome.images) images in the feature cache after \(seconds) s" + failed }
        return "\(outcome.done) of \(outcome.images) images embedded in \(seconds) s "
            + "(\(String(format: "%.1f", Double(outcome.done) / max(outcome.seconds, 1e-9))) images/s)" + failed
    }
}
