import Workbench

/// Renders a run over image files (`features`, `classify`) on stderr: the shard it takes, one line per file that
/// cannot be read, and a progress bar (on a terminal only).
final class ImageFilesProgress {
    private let label: String
    private var bar: ProgressBar?

    /// A renderer whose bar is titled `label`.
    init(label: String) { self.label = label }

    func render(_ event: ImageFilesEvent) {
        switch event {
        case .shard(let shard, let images, let total): Console.warn("shard \(shard): \(images) of \(total) images")
        case .skipped(let error):
            bar?.finish()
            Console.warn(Console.failureText(error, worded: false))
        case .started(let images): bar = ProgressBar(total: images, label: label)
        case .progress(let done, _): bar?.update(completed: done)
        }
    }

    /// Clears the bar's line, so a result line starts on a clean one.
    func clear() { bar?.finish() }
}
