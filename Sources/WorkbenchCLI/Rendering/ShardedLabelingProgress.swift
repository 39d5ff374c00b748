import Workbench

/// Renders `label --results`' events on stderr: a line per movie (already done, labelled, failed), a progress bar
/// while one is labelled.
final class ShardedLabelingProgress {
    private var bar: ProgressBar?

    func render(_ event: ShardedLabeling.Event) {
        switch event {
        case .alreadyDone(let movie): Console.warn("\(movie.id): already done (\(movie.path))")
        case .started(let movie): bar = ProgressBar(total: 0, label: movie.id)
        case .progress(let done, let expected): bar?.update(completed: done, total: expected)
        case .labeled(let movie, let markers, let frames, let resultPath):
            bar?.finish()
            Console.warn("\(movie.id): \(frames) frames, \(markers) markers → \(resultPath)")
        case .skippedFrame(_, let reason): Console.warn("warning: \(reason) (frame skipped)")
        case .failed(let movie, let error):
            bar?.finish()
            Console.warn("workbench: \(Console.failureText(error, worded: false)) (movie \(movie.id) has no result)")
        }
    }

    /// "shard 0/2: 1 labeled, 0 already done, 0 failed, of 1 movies".
    static func summary(_ outcome: ShardedLabeling.ShardResult, shard: Shard) -> String {
        "shard \(shard): \(outcome.labeled) labeled, \(outcome.alreadyDone) already done, \(outcome.failed) failed, of \(outcome.movies) movies"
    }
}
