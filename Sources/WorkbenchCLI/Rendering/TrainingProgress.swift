import Workbench

/// Renders a training run's `TrainingEvent`s on stderr: what the scan found, warnings, a progress bar per phase
/// (features, augmented views, fine-tuning's frozen layers and rescoring) and fine-tuning's epoch lines.
final class TrainingProgress {
    /// Whether the non-image files passed over are listed.
    private let verbose: Bool
    private var bar: ProgressBar?
    private var viewBar: ProgressBar?

    init(verbose: Bool) { self.verbose = verbose }

    func render(_ event: TrainingEvent) {
        switch event {
        case .scanned(let counts, let skipped):
            // The table comes once training knows what was held out; for now, what was found.
            let training = counts.reduce(0) { $0 + $1.training }, testing = counts.reduce(0) { $0 + $1.testing }
            Console.warn("found \(counts.count) labels: \(training) training, \(testing) testing images")
            if verbose { for file in skipped { Console.warn("skipped \(file)") } }
        case .warning(let line):
            bar?.finish()
            Console.warn("warning: \(line)")
        case .features(let done, let total):
            if bar == nil { bar = ProgressBar(total: total, label: "features") }
            bar?.update(completed: done)
        case .views(let done, let total):
            if viewBar == nil {
                bar?.finish()
                viewBar = ProgressBar(total: total, label: "views")
            }
            viewBar?.update(completed: done)
        case .fitting:
            bar?.finish()
            viewBar?.finish()
        case .fineTuning(let step):
            render(step)
        }
    }

    private func render(_ step: FineTuningProgress) {
        switch step {
        case .preparing(let done, let total), .rescoring(let done, let total):
            let label = if case .rescoring = step { "fine-tuned features" } else { "frozen layers" }
            if bar?.label != label {
                bar?.finish()
                bar = ProgressBar(total: total, label: label)
            }
            bar?.update(completed: done)
            if done == total { bar?.finish() }
        default:
            bar?.finish()
            Console.warn(ReportRendering.fineTuningProgress(step))
        }
    }
}
