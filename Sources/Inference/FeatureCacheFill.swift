import FileFormats

/// `workbench features --fill-cache`: every image's features computed into the feature cache, with nothing else
/// written, so that a later `train` (or `evaluate`, `classify`) over the same images reads them instead of running
/// the network. Images already cached are looked up, not recomputed, so a fill run again resumes where it stopped.
public enum FeatureCacheFill {
    /// How a fill went.
    public struct Outcome: Sendable, Equatable {
        /// Images given.
        public var images: Int
        /// Images whose features are now in the cache.
        public var cached: Int
        /// Images that could not be read (each reported through `failure`).
        public var failed: Int
    }

    /// Fills `extractor`'s cache with the features of `paths`; a file that cannot be read is reported and skipped,
    /// or with `strict` is the error.
    public static func fill(
        paths: [String], extractor: FeatureExtractor, strict: Bool = false,
        progress: (_ done: Int, _ total: Int) -> Void,
        failure: (WorkbenchError) -> Void
    ) throws(WorkbenchError) -> Outcome {
        guard extractor.settings.usesCache else {
            throw WorkbenchError("the feature cache is turned off: there is nothing to fill")
        }
        var outcome = Outcome(images: paths.count, cached: 0, failed: 0)
        var stop: WorkbenchError?
        extractor.extract(paths: paths) { index, _, result in
            progress(index + 1, paths.count)
            switch result {
            case .success:
                outcome.cached += 1
            case .failure(let error):
                outcome.failed += 1
                if strict {
                    stop = error
                    return false
                }
                failure(error)
            }
            return true
        }
        if let stop { throw stop }
        return outcome
    }
}
