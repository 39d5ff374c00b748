import Workbench

/// `evaluate`'s progress bar and warnings on stderr.
final class EvaluationProgress {
    private var bar: ProgressBar?

    func update(done: Int, total: Int) {
        if bar == nil { bar = ProgressBar(total: total, label: "evaluate") }
        bar?.update(completed: done)
    }

    func warn(_ line: String) {
        bar?.finish()
        Console.warn("warning: \(line)")
    }

    /// A classifier evaluation's event.
    func render(_ event: EvaluationEvent) {
        switch event {
        case .progress(let done, let total): update(done: done, total: total)
        case .warning(let line): warn(line)
        }
    }

    func finish() { bar?.finish() }
}
