import Detection
import ImageCodecs
import Inference
import TensorCore

/// A trained detector model as `detect` runs it (`Detection.ObjectDetecting`): the whole picture resized to the
/// model's input square, the backbone's maps, the head, the boxes scaled back to the picture. Its default
/// minimum score is the threshold stored in the model.
public struct TrainedObjectDetector: ObjectDetecting {
    /// The model at work.
    public let loaded: LoadedDetector
    /// Pictures run at once by `detect(in: [RGBImage], …)`, each on its own thread.
    public let threads: Int
    /// Whether each picture's boxes come from it and its mirror averaged (`MirrorAveraging`, `--tta`): twice the work.
    public let mirror: Bool

    /// A detector over `loaded` for `threads` worker threads, averaging each picture with its mirror when `mirror`.
    public init(_ loaded: LoadedDetector, threads: Int, mirror: Bool = false) {
        self.loaded = loaded
        self.threads = max(1, threads)
        self.mirror = mirror
    }

    /// The model's labels.
    public var labels: [String] { loaded.detector.labels }

    /// The threshold of best held-out F1 the model stores.
    public var defaultMinimumConfidence: Float { Float(loaded.detector.threshold) }

    /// Boxes on `image`, best first. A picture the network cannot read into finite maps has none.
    public func detect(in image: RGBImage, minimumConfidence: Float) -> [DetectedObject] {
        guard let maps = try? loaded.extractor.maps(of: image, views: DetectionView.answering(mirror: mirror), path: "") else { return [] }
        let outputs = loaded.detector.outputs(for: [maps[0]])
        let mirroredOutputs = mirror ? loaded.detector.outputs(for: [maps[1]]) : nil
        return loaded.detector.objects(
            outputs: outputs, mirroredOutputs: mirroredOutputs, item: 0, pictureWidth: image.width,
            pictureHeight: image.height, minimumScore: Double(minimumConfidence)
        ).map { object in
            DetectedObject(
                label: object.label, confidence: Float(object.score),
                box: BoundingBox(
                    left: object.box.left, top: object.box.top, right: object.box.right,
                    bottom: object.box.bottom))
        }
    }

    /// `detect` on each picture, `threads` at a time with BLAS single-threaded; results in the pictures' order.
    public func detect(in images: [RGBImage], minimumConfidence: Float) -> [[DetectedObject]] {
        GEMM.setBLASThreads(1)
        var results = [[DetectedObject]](repeating: [], count: images.count)
        results.withUnsafeMutableBufferPointer { buffer in
            let shared = UncheckedSendable(buffer)
            Parallel.forEach(images.count, threads: threads) { index in
                shared.value[index] = detect(in: images[index], minimumConfidence: minimumConfidence)
            }
        }
        return results
    }
}
