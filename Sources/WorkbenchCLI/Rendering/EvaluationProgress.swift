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

    func finish() { bar?.finish() }
}
