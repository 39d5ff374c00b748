import Workbench

/// Renders a detector training run's events on stderr: notes with `--verbose`, a progress bar over the pictures'
/// maps, then one line per epoch with its loss and held-out mAP@0.5.
final class DetectorTrainingProgress {
    private let verbose: Bool
    private var bar: ProgressBar?

    init(verbose: Bool) { self.verbose = verbose }

    func render(_ event: DetectorTrainingEvent) {
        switch event {
        case .note(let line):
            if verbose { Console.warn(line) }
        case .clippedBoxes(let file, let boxes):
            Console.warn(AnnotationWarnings.clipped(boxes, file: file))
        case .maps(let done, let total):
            if bar == nil { bar = ProgressBar(total: total, label: "maps") }
            bar?.update(completed: done)
            if done == total { bar?.finish() }
        case .epoch(let epoch, let total):
            bar?.finish()
            Console.warn(
                String(
                    format: "epoch %d/%d: loss %.4f, held-out mAP@0.5 %.3f", epoch.epoch, total, epoch.loss,
                    epoch.heldOutMeanAveragePrecision50))
        case .fineTuningStarted(let score):
            Console.warn(String(format: "fine-tuning blocks 11-15 and the head; frozen head (epoch 0): held-out mAP@0.5 %.3f", score))
        case .fineTuningEpoch(let epoch, let total, let imagesPerSecond):
            Console.warn(
                String(
                    format: "fine-tuning epoch %d/%d: loss %.4f, held-out mAP@0.5 %.3f, %.1f images/s", epoch.epoch, total,
                    epoch.loss, epoch.heldOutMeanAveragePrecision50, imagesPerSecond))
        case .refitEpoch(let epoch, let total, let loss, let pictures):
            Console.warn(String(format: "refit on all %d pictures, epoch %d/%d: loss %.4f", pictures, epoch, total, loss))
        }
    }
}
