import Layers
import Models
import TensorCore

/// The trainable top of EfficientNet-Lite0 with a dense classifier and its loss: what one fine-tuning step runs.
///
/// Shapes: input as `TrainableEfficientNetLite0` takes it, `[batch] + backbone.inputItemShape`; one label per
/// item; logits `[batch, classes]`. The loss is softmax cross-entropy with label smoothing, averaged over the batch.
///
/// **Threads split the batch.** `lossAndGradients` cuts the batch into `threads` contiguous parts (the first
/// `batch % threads` one item longer), runs forward and backward on each part on its own thread, and adds the
/// parts' gradients in part order, so a given thread count always gives the same bits. Each part's loss is
/// already divided by the whole batch's size, so the parts simply add up. BLAS threading is the caller's choice:
/// keep it at one thread (`GEMM.setBLASThreads(1)`) when `threads` > 1.
public struct TrainableClassifier: Sendable {
    /// The trainable layers up to the features.
    public var backbone: TrainableEfficientNetLite0
    /// `[classes, 1280]` weights and `[classes]` bias.
    public var classifier: DenseLayer<Float>
    /// ε of the smoothed targets, in `[0, 1)`.
    public let labelSmoothing: Double

    /// A classifier from its parts.
    public init(backbone: TrainableEfficientNetLite0, classifier: DenseLayer<Float>, labelSmoothing: Double) {
        precondition(classifier.inputCount == EfficientNetLite0.featureCount, "TrainableClassifier: the classifier must read 1280 features")
        precondition(labelSmoothing >= 0 && labelSmoothing < 1, "TrainableClassifier: label smoothing outside [0, 1)")
        self.backbone = backbone
        self.classifier = classifier
        self.labelSmoothing = labelSmoothing
    }

    /// Number of classes.
    public var classCount: Int { classifier.outputCount }

    /// The gradients of every trainable parameter.
    public struct Gradients: Sendable, Equatable {
        /// The trainable network's.
        public var backbone: TrainableEfficientNetLite0.Gradients
        /// The dense classifier's.
        public var classifier: DenseLayer<Float>.Gradients

        /// Adds another part of the batch's gradients.
        public static func += (left: inout Self, right: Self) {
            left.backbone += right.backbone
            left.classifier += right.classifier
        }
    }

    /// Calls `rule` for each parameter with its gradient; the classifier's are `classifier.weights` and
    /// `classifier.bias`, the backbone's as `TrainableEfficientNetLite0.update` names them.
    public mutating func update(with gradients: Gradients, _ rule: ParameterUpdate<Float>) {
        backbone.update(with: gradients.backbone, rule)
        classifier.update(with: gradients.classifier, prefix: "classifier.", rule)
    }

    /// The contiguous parts `threads` workers take of a batch: `batch % threads` parts one item longer first.
    public static func parts(batch: Int, threads: Int) -> [Range<Int>] {
        let count = max(1, min(threads, batch))
        let base = batch / count, longer = batch % count
        var start = 0
        return (0..<count).map { part in
            let length = base + (part < longer ? 1 : 0)
            defer { start += length }
            return start..<(start + length)
        }
    }

    /// The mean loss over the batch and the gradients of every trainable parameter (one training step's
    /// forward and backward passes), the batch split over `threads`.
    public func lossAndGradients(
        _ input: Tensor<Float>, labels: [Int], threads: Int = 1,
        kernel: KernelChoice = .automatic
    ) -> (loss: Double, gradients: Gradients) {
        precondition(
            input.rank >= 1 && input.shape[0] == labels.count && !labels.isEmpty,
            "TrainableClassifier: \(labels.count) labels for input \(input.shape)")
        let parts = Self.parts(batch: labels.count, threads: threads)
        let results = Self.collect(parts.count, threads: parts.count) { part in
            let range = parts[part]
            let slice = parts.count == 1 ? input : input.batchSlice(range)
            return partLossAndGradients(slice, labels: Array(labels[range]), normalizer: labels.count, kernel: kernel)
        }
        var loss = results[0].loss, gradients = results[0].gradients
        for result in results.dropFirst() {
            loss += result.loss
            gradients += result.gradients
        }
        return (loss, gradients)
    }

    /// One part's forward and backward passes; its loss and gradients are divided by `normalizer` (the whole batch).
    private func partLossAndGradients(
        _ input: Tensor<Float>, labels: [Int], normalizer: Int,
        kernel: KernelChoice
    ) -> (loss: Double, gradients: Gradients) {
        let features = backbone.forward(input, mode: .training, kernel: kernel)
        let logits = classifier.forward(features.features, mode: .training)
        let loss = SoftmaxCrossEntropy.lossAndGradient(
            logits: logits.output, labels: labels, labelSmoothing: labelSmoothing,
            normalizer: normalizer)
        let classifierStep = classifier.backward(loss.logitGradient, cache: logits.cache!)
        let backboneGradients = backbone.backward(classifierStep.input!, cache: features.cache!, kernel: kernel)
        return (loss.loss, Gradients(backbone: backboneGradients, classifier: classifierStep.gradients))
    }

    /// Logits `[batch, classes]` (inference: no caches), the batch split over `threads`.
    public func logits(_ input: Tensor<Float>, threads: Int = 1, kernel: KernelChoice = .automatic) -> Tensor<Float> {
        let batch = input.shape[0]
        let parts = Self.parts(batch: batch, threads: threads)
        let results = Self.collect(parts.count, threads: parts.count) { part in
            let features = backbone.forward(parts.count == 1 ? input : input.batchSlice(parts[part]), mode: .inference, kernel: kernel)
            return classifier.forward(features.features, mode: .inference).output
        }
        return Tensor.concatenatingBatches(results)
    }

    /// `body(0..<count)` on up to `threads` threads, the results in index order.
    static func collect<Result: Sendable>(_ count: Int, threads: Int, _ body: (Int) -> Result) -> [Result] {
        let slots = UnsafeMutableBufferPointer<Result?>.allocate(capacity: count)
        slots.initialize(repeating: nil)
        defer { slots.deinitialize(); slots.deallocate() }
        let shared = UncheckedSendable(slots)
        // Each index writes only its own slot.
        Parallel.forEach(count, threads: threads) { index in shared.value[index] = body(index) }
        return slots.map { $0! }
    }
}
