import ClassifierTraining
import FileFormats
import Foundation
import ImageCodecs
import Inference
import LogisticHead
import Models
import Pages
import TensorCore

/// Reads images again for a page: the thumbnail the network's crop gives, and for a mistake the class-activation
/// map of the predicted label laid over it. Images are spread over the extractor's worker threads.
struct PictureMaker: Sendable {
    let classifier: Classifier
    let network: EfficientNetLite0
    let settings: FeatureSettings

    /// What came out for one image.
    struct Made: Sendable {
        var picture: Picture?
        var overlay: Picture?
        var problem: String?
    }

    init(classifier: Classifier, extractor: FeatureExtractor) throws(WorkbenchError) {
        self.classifier = classifier
        network = try extractor.loadedNetwork()
        settings = extractor.settings
    }

    /// One result per request `(path, label whose evidence to map, or nil for none)`, in order. A file that can no
    /// longer be read gets its reason instead of a picture.
    func make(_ requests: [(path: String, label: Int?)]) -> [Made] {
        guard !requests.isEmpty else { return [] }
        GEMM.setBLASThreads(1)
        let results = UncheckedSendable(UnsafeMutableBufferPointer<Made>.allocate(capacity: requests.count))
        defer { results.value.deallocate() }
        let requests = UncheckedSendable(requests)
        Parallel.forEach(requests.value.count, threads: max(1, settings.threads)) { index in
            (results.value.baseAddress! + index).initialize(to: make(requests.value[index]))
        }
        return Array(results.value)
    }

    private func make(_ request: (path: String, label: Int?)) -> Made {
        do throws(ImageError) {
            let image = try ImageLoader.load(path: request.path, options: DecodeOptions(maximumPixels: settings.maximumPixels))
            let preprocessing = classifier.backbone.preprocessing
            guard let picture = try Picture.networkCropThumbnail(of: image, preprocessing: preprocessing, name: request.path) else {
                return Made(problem: "image too small to show")
            }
            var made = Made(picture: picture)
            if let label = request.label {
                let side = EfficientNetLite0.featureMapSide
                let map = network.featureMaps(preprocessing.networkInput(from: image), batch: 1)
                let activation = ClassActivationMap.compute(
                    featureMap: map, positions: side * side, model: classifier.head,
                    standardizer: classifier.standardizer)
                made.overlay = try Picture.heatOverlay(values: activation[label], side: side, name: request.path)
            }
            return made
        } catch {
            return Made(problem: error.reason)
        }
    }
}

extension Picture {
    /// A page's thumbnail of `image`: the network's centre crop, scaled to `ModelReports.thumbnailSide`, as JPEG;
    /// nil when the picture is too small to have a crop. The model pages and doctor's Explore page show the same.
    static func networkCropThumbnail(of image: RGBImage, preprocessing: ImagePreprocessing, name: String) throws(ImageError) -> Picture? {
        let crop = preprocessing.centerCrop(width: image.width, height: image.height)
        guard crop.side > 0 else { return nil }
        return try Picture.jpeg(Resize.bicubic(image, crop: crop, outputSide: ModelReports.thumbnailSide), name: name)
    }
}
