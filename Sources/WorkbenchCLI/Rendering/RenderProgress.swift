/// The progress of a rendering command (`sync`, `trace`) on stderr: a bar of the fraction done, in thousandths.
final class RenderProgress {
    private let bar: ProgressBar

    init(label: String) { bar = ProgressBar(total: 1000, label: label) }

    func update(_ fraction: Double) { bar.update(completed: Int((min(1, max(0, fraction)) * 1000).rounded())) }

    func finish() { bar.finish() }
}
