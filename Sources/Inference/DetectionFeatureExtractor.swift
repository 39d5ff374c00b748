import Datasets
import FileFormats
import Foundation
import ImageCodecs
import ModelFiles
import Models
import TensorCore

/// The detector's input: EfficientNet-Lite0's stride-16 and stride-32 maps (`Models.FeaturePyramid`) of a picture's
/// views at the detector's input side, computed once per picture content, side and view and kept in the feature
/// cache beside the classifier's vectors.
///
/// A view's entry is the two maps of one image packed `fine` then `coarse` (`FeaturePyramid.packed`). The cache key
/// hashes the file's content, the preprocessing JSON with the input side and the view's description, and the
/// backbone identifier, so maps of another side, view or backbone are never reused. Pictures are decoded whole (no
/// shrinking while decoding: a view may be a small crop, and boxes are in the picture's displayed pixels).
/// Safe to share between threads.
public final class DetectionFeatureExtractor: Sendable {
    /// The input side the detector's head was measured at (docs/evidence/detector-training.md): 320 px gives
    /// 20 × 20 cells at stride 16.
    public static let defaultInputSide = 320

    /// The backbone whose maps these are.
    public let backbone: Backbone
    /// Side of the square network input each view is resized to.
    public let inputSide: Int
    /// Threads, pixel limit and cache, as for the classifier's features.
    public let settings: FeatureSettings
    private let cache: FeatureCache?
    private let network: EfficientNetLite0
    private let backboneIdentifier: String
    /// The backbone's preprocessing at `inputSide` (its mean and std; the crop does not apply).
    private let preprocessing: ImagePreprocessing

    /// Builds the network now (the caller is about to need maps). `inputSide` must be one `DetectorInputSide` allows.
    public init(backbone: Backbone, inputSide: Int = defaultInputSide, settings: FeatureSettings = FeatureSettings())
        throws(WorkbenchError)
    {
        guard DetectorInputSide.isValid(inputSide) else {
            throw WorkbenchError("the detector's input side must be \(DetectorInputSide.requirement), not \(inputSide)")
        }
        if let field = backbone.preprocessing.unsupportedField() {
            throw WorkbenchError(path: backbone.source, reason: "preprocessing \(field)")
        }
        do {
            network = try EfficientNetLite0(weights: backbone.weights, path: backbone.source)
        } catch {
            throw WorkbenchError("\(error)")
        }
        self.backbone = backbone
        self.inputSide = inputSide
        self.settings = settings
        cache = settings.usesCache ? FeatureCache(folder: settings.cacheFolder) : nil
        backboneIdentifier = settings.usesCache ? backbone.identifier : ""
        var preprocessing = backbone.preprocessing
        preprocessing.inputSide = inputSide
        self.preprocessing = preprocessing
    }

    /// Floats of one view's packed maps.
    public var floatsPerView: Int {
        let fine = EfficientNetLite0.mapSide(inputSide: inputSide, stride: 16)
        let coarse = EfficientNetLite0.mapSide(inputSide: inputSide, stride: 32)
        return fine * fine * EfficientNetLite0.stride16Channels + coarse * coarse * EfficientNetLite0.stride32Channels
    }

    /// How pictures are decoded: whole, EXIF orientation applied (boxes are in displayed pixels), within the limit.
    public var decodeOptions: DecodeOptions {
        DecodeOptions(maximumPixels: settings.maximumPixels, minimumCropSide: nil)
    }

    /// The packed maps of each of `views` of the picture at `path`, and the picture's decoded size (the size the
    /// views' pixel regions were taken in). Cached views are read, the others computed as one batch.
    public func maps(ofImageAt path: String, views: [DetectionView]) throws(WorkbenchError) -> (maps: [[Float]], size: ImageSize) {
        let file: InputFile = try WorkbenchError.passingOn { try ImageLoader.open(path: path, options: decodeOptions) }
        var keys: [FeatureCacheKey?] = Array(repeating: nil, count: views.count)
        var results: [[Float]?] = Array(repeating: nil, count: views.count)
        if let cache {
            let content: ContentHash = try WorkbenchError.passingOn { try ContentHash.of(file: file) }
            for (index, view) in views.enumerated() {
                let key = FeatureCacheKey(
                    contentHash: content, preprocessingID: cacheDescription(of: view),
                    backboneID: backboneIdentifier)
                keys[index] = key
                if let cached = cache.lookup(key), cached.count == floatsPerView { results[index] = cached }
            }
        }
        // The size is needed even when every view is cached; the header alone gives the displayed size.
        if results.allSatisfy({ $0 != nil }) {
            let size = try WorkbenchError.passingOn { try ImageLoader.size(path: path, options: decodeOptions) }
            return (results.map { $0! }, size)
        }
        let image = try WorkbenchError.passingOn { try ImageLoader.decode(file: file, options: decodeOptions) }
        let missing = views.indices.filter { results[$0] == nil }
        let computed = try maps(of: image, views: missing.map { views[$0] }, path: path)
        for (slot, index) in missing.enumerated() {
            results[index] = computed[slot]
            if let key = keys[index] { try? cache?.store(key, features: computed[slot]) }
        }
        return (results.map { $0! }, ImageSize(width: image.width, height: image.height))
    }

    /// The packed maps of `views` of a decoded picture (a video frame), uncached; `path` names it in errors.
    public func maps(of image: RGBImage, views: [DetectionView], path: String) throws(WorkbenchError) -> [[Float]] {
        if views.isEmpty { return [] }
        var input: [Float] = []
        input.reserveCapacity(views.count * inputSide * inputSide * 3)
        for view in views {
            let rendered = view.render(image, inputSide: inputSide)
            var values = [Float](repeating: 0, count: inputSide * inputSide * 3)
            let floats = rendered.pixels.map(Float.init)
            values.withUnsafeMutableBufferPointer { preprocessing.normalise(floats, into: $0.baseAddress!) }
            input += values
        }
        let pyramid = network.featurePyramid(input, batch: views.count, side: inputSide)
        return try (0..<views.count).map { (index: Int) throws(WorkbenchError) -> [Float] in
            let packed = pyramid.packed(image: index)
            // Finite weights can still overflow on extreme values; such maps are no measurement.
            guard packed.allSatisfy(\.isFinite) else {
                throw WorkbenchError(path: path, reason: "the network's maps are not finite numbers (overflow in the backbone's weights)")
            }
            return packed
        }
    }

    /// The maps of many pictures' views on `settings.threads` worker threads (BLAS single-threaded), delivered in
    /// input order on the calling thread.
    public func extract(
        paths: [String], views: @escaping @Sendable (Int) -> [DetectionView],
        deliver: (_ index: Int, _ result: Result<(maps: [[Float]], size: ImageSize), WorkbenchError>) -> Void
    ) {
        GEMM.setBLASThreads(1)
        let threads = min(max(1, settings.threads), FeatureExtractor.mostWorkers)
        OrderedPipeline.run(
            count: paths.count, threads: threads,
            work: { [self] index in
                Result { () throws(WorkbenchError) -> (maps: [[Float]], size: ImageSize) in
                    try maps(ofImageAt: paths[index], views: views(index))
                }
            }, deliver: deliver)
    }

    private func cacheDescription(of view: DetectionView) -> String {
        "\(backbone.preprocessing.canonicalJSON) detector input \(inputSide) \(view.cacheDescription)"
    }
}
