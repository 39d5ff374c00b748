import FileFormats
import ImageCodecs
import Models
import Synchronization
import TensorCore

/// The person detector: SSDLite + MobileNetV2 from the converted weights, with the graph's own preprocessing,
/// box decoding, score conversion and non-maximum suppression. A picture in, boxes in its pixels out.
///
/// Immutable after loading; `detect` may run on several threads at once (each call borrows its own buffers).
public final class ObjectDetector: Sendable {
    /// The confidence `detect` callers use unless told otherwise (the `detect` command's `--min-score`).
    public static let defaultMinimumConfidence: Float = 0.5

    /// The network.
    public let network: SSDLiteMobileNetV2
    /// The labels and the post-processing constants the converter took from the graph.
    public let settings: DetectorSettings
    /// Pictures `detect(in: [RGBImage])` runs at once.
    public let threads: Int
    /// Idle per-call buffers (input and outputs, 1.1 MB), reused rather than allocated per frame.
    private let idleBuffers = Mutex<[DetectorBuffers]>([])

    /// The labels the detector reports: `["person"]` for the built-in one.
    public var labels: [String] { settings.labels }
    /// Side of the square the pictures are resized to: 300.
    public var inputSide: Int { SSDLiteMobileNetV2.inputSide }

    /// A detector from a loaded network and its settings.
    public init(network: SSDLiteMobileNetV2, settings: DetectorSettings, threads: Int) {
        self.network = network
        self.settings = settings
        self.threads = max(1, threads)
    }

    /// Loads a converted weights file (`DetectorLocation.resolve` finds the built-in one). `threads` is how many
    /// pictures the batched `detect` runs at once. The error names the file and what is wrong with it.
    public static func load(path: String, threads: Int) throws(DetectorWeightsError) -> ObjectDetector {
        let file: SafetensorsFile
        do {
            file = try SafetensorsFile.read(path: path)
        } catch {
            throw DetectorWeightsError(path: path, reason: error.reason)
        }
        let settings = try DetectorSettings(metadata: file.metadata, path: path)
        let network = try SSDLiteMobileNetV2(weights: file, path: path)
        return ObjectDetector(network: network, settings: settings, threads: threads)
    }

    /// Boxes in pixels of `image`, score ≥ minimumConfidence, after NMS, highest first.
    public func detect(in image: RGBImage, minimumConfidence: Float = ObjectDetector.defaultMinimumConfidence) -> [DetectedObject] {
        guard image.width > 0, image.height > 0 else { return [] }
        return withOutputs(for: image) { boxEncodings, classLogits in
            objects(
                boxEncodings: boxEncodings, classLogits: classLogits, width: image.width, height: image.height,
                minimumConfidence: minimumConfidence)
        }
    }

    /// `detect` on several pictures, up to `threads` at once; the results in the pictures' order.
    public func detect(in images: [RGBImage], minimumConfidence: Float = ObjectDetector.defaultMinimumConfidence) -> [[DetectedObject]] {
        let results = Mutex<[[DetectedObject]]>(Array(repeating: [], count: images.count))
        Parallel.forEach(images.count, threads: threads) { index in
            let found = detect(in: images[index], minimumConfidence: minimumConfidence)
            results.withLock { $0[index] = found }
        }
        return results.withLock { $0 }
    }

    /// The network's raw outputs for `image`: box encodings `[1917, 4]` and class logits `[1917, 2]` (before the
    /// box coder and the sigmoid), for tests against the reference graph's own tensors.
    public func rawOutputs(for image: RGBImage) -> (boxEncodings: [Float], classLogits: [Float]) {
        withOutputs(for: image) { boxEncodings, classLogits in
            (
                Array(UnsafeBufferPointer(start: boxEncodings, count: SSDLiteMobileNetV2.anchorCount * 4)),
                Array(UnsafeBufferPointer(start: classLogits, count: SSDLiteMobileNetV2.anchorCount * SSDLiteMobileNetV2Architecture.classCount))
            )
        }
    }

    /// Runs preprocessing and the network on borrowed buffers and hands their outputs to `body`.
    private func withOutputs<Result>(
        for image: RGBImage,
        _ body: (UnsafePointer<Float>, UnsafePointer<Float>) -> Result
    ) -> Result {
        let buffers = idleBuffers.withLock { $0.popLast() } ?? DetectorBuffers(side: inputSide)
        defer { idleBuffers.withLock { $0.append(buffers) } }
        DetectorPreprocessing.prepare(image, side: inputSide, into: buffers.input)
        network.forward(input: buffers.input, boxEncodings: buffers.boxEncodings, classLogits: buffers.classLogits)
        return body(buffers.boxEncodings, buffers.classLogits)
    }

    /// Post-processing as the graph does it, per class: scores, decode the candidates, suppress, clip to the
    /// picture, drop empty boxes, keep the graph's maximum; then pixels of a `width × height` picture.
    func objects(
        boxEncodings: UnsafePointer<Float>, classLogits: UnsafePointer<Float>, width: Int, height: Int,
        minimumConfidence: Float
    ) -> [DetectedObject] {
        var found: [DetectedObject] = []
        // Candidates below the graph's own score threshold never enter its suppression either.
        let floor = max(minimumConfidence, settings.scoreThreshold.nextUp)
        for (offset, label) in settings.labels.enumerated() {
            let (indices, scores) = AnchorBoxDecoding.scores(
                classLogits: classLogits, anchorCount: SSDLiteMobileNetV2.anchorCount,
                classCount: SSDLiteMobileNetV2Architecture.classCount, classIndex: offset + 1,
                logitScale: settings.logitScale, minimumScore: floor)
            let boxes = network.anchors.withUnsafeBufferPointer { anchors in
                AnchorBoxDecoding.decode(
                    boxEncodings: boxEncodings, anchors: anchors.baseAddress!, scales: settings.boxCoderScales,
                    indices: indices)
            }
            let kept = NonMaximumSuppression.select(
                boxes: boxes, scores: scores, overlapThreshold: settings.overlapThreshold,
                scoreThreshold: settings.scoreThreshold, maximumCount: settings.maximumPerClass)
            for index in kept {
                let box = boxes[index].clipped
                guard box.area > 0 else { continue }
                found.append(
                    DetectedObject(
                        label: label, confidence: scores[index],
                        box: BoundingBox(
                            left: Double(box.left) * Double(width), top: Double(box.top) * Double(height),
                            right: Double(box.right) * Double(width), bottom: Double(box.bottom) * Double(height))))
            }
        }
        // The graph sorts all classes' boxes by score (a stable order for equal scores) and keeps its maximum.
        let sorted = found.enumerated().sorted {
            $0.element.confidence > $1.element.confidence
                || ($0.element.confidence == $1.element.confidence && $0.offset < $1.offset)
        }.map(\.element)
        return Array(sorted.prefix(settings.maximumTotal))
    }
}

/// One call's input and output buffers; handed between threads only through the detector's mutex.
private final class DetectorBuffers: @unchecked Sendable {
    let input: UnsafeMutablePointer<Float>
    let boxEncodings: UnsafeMutablePointer<Float>
    let classLogits: UnsafeMutablePointer<Float>
    init(side: Int) {
        input = .allocate(capacity: side * side * 3)
        boxEncodings = .allocate(capacity: SSDLiteMobileNetV2.anchorCount * 4)
        classLogits = .allocate(capacity: SSDLiteMobileNetV2.anchorCount * SSDLiteMobileNetV2Architecture.classCount)
    }
    deinit {
        input.deallocate()
        boxEncodings.deallocate()
        classLogits.deallocate()
    }
}
