import Datasets
import Foundation
import ImageCodecs
import Models
import TensorCore

/// How features are computed: worker threads, the decoder's pixel limit, and the on-disk cache.
public struct FeatureSettings: Sendable {
    /// Worker threads; each runs one image at a time with BLAS single-threaded.
    public var threads: Int
    /// Images above this many pixels are refused before any big allocation.
    public var maximumPixels: Int
    /// Whether features are looked up in and stored to the on-disk cache.
    public var usesCache: Bool
    /// The cache folder; nil is `$WORKBENCH_CACHE`, else `$XDG_CACHE_HOME/workbench/features` or `~/.cache/...`.
    public var cacheFolder: String?

    public init(threads: Int = Parallel.coreCount, maximumPixels: Int = 300_000_000, usesCache: Bool = true,
                cacheFolder: String? = nil) {
        self.threads = threads
        self.maximumPixels = maximumPixels
        self.usesCache = usesCache
        self.cacheFolder = cacheFolder
    }
}

/// Turns image files into 1280-d EfficientNet-Lite0 features: decode (shrinking while decoding), preprocess, run
/// the backbone, with an optional cache keyed by the file's content, the preprocessing and the backbone.
///
/// The network is built on first need, so a run whose features are all cached never pays for it.
/// Safe to share between threads.
public final class FeatureExtractor: Sendable {
    /// The backbone whose features these are.
    public let backbone: Backbone
    /// The settings in force.
    public let settings: FeatureSettings
    private let cache: FeatureCache?
    private let network: LazyNetwork

    public init(backbone: Backbone, settings: FeatureSettings = FeatureSettings()) {
        self.backbone = backbone
        self.settings = settings
        cache = settings.usesCache ? FeatureCache(folder: settings.cacheFolder) : nil
        network = LazyNetwork(backbone: backbone)
    }

    private var decodeOptions: DecodeOptions {
        DecodeOptions(maximumPixels: settings.maximumPixels)
    }

    /// The network, built now if it was not yet.
    public func loadedNetwork() throws(WorkbenchError) -> EfficientNetLite0 { try network.get() }

    /// The features of one image file (from the cache when it has them).
    public func features(ofImageAt path: String) throws(WorkbenchError) -> [Float] {
        guard let cache else { return try computeFeatures(ofImageAt: path) }
        let key: FeatureCacheKey
        do {
            key = try FeatureCacheKey(imagePath: path, preprocessingID: Preprocessing.identifier, backboneID: backbone.identifier)
        } catch {
            throw WorkbenchError(path: error.path, reason: error.reason)
        }
        return try cache.features(for: key) { () throws(WorkbenchError) -> [Float] in try computeFeatures(ofImageAt: path) }
    }

    private func computeFeatures(ofImageAt path: String) throws(WorkbenchError) -> [Float] {
        let image: RGBImage
        do {
            image = try ImageLoader.load(path: path, options: decodeOptions)
        } catch {
            throw WorkbenchError(path: error.path, reason: error.reason)
        }
        return try features(of: image)
    }

    /// The features of one decoded image (cropped and resized here unless it is already 224 × 224).
    public func features(of image: RGBImage) throws(WorkbenchError) -> [Float] {
        try network.get().features(Preprocessing.networkInput(from: image), batch: 1)
    }

    /// Features of many files on the worker threads, delivered in input order on the calling thread. Memory stays
    /// bounded: only a few images are in flight at a time.
    public func extract(
        paths: [String],
        deliver: (_ index: Int, _ path: String, _ result: Result<[Float], WorkbenchError>) -> Void
    ) {
        GEMM.setBLASThreads(1)
        OrderedPipeline.run(count: paths.count, threads: settings.threads, work: { [self] index in
            Result { () throws(WorkbenchError) -> [Float] in try features(ofImageAt: paths[index]) }
        }, deliver: { index, result in
            deliver(index, paths[index], result)
        })
    }
}

/// Builds the network once, on first use, from whichever thread gets there first.
private final class LazyNetwork: @unchecked Sendable {
    private let backbone: Backbone
    private let lock = NSLock()
    private var network: Result<EfficientNetLite0, WorkbenchError>?

    init(backbone: Backbone) { self.backbone = backbone }

    func get() throws(WorkbenchError) -> EfficientNetLite0 {
        lock.lock()
        defer { lock.unlock() }
        if network == nil {
            network = Result { () throws(WorkbenchError) -> EfficientNetLite0 in try backbone.makeNetwork() }
        }
        return try network!.get()
    }
}
