import Augmentation
import Datasets
import FileFormats
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

    public init(
        threads: Int = Parallel.coreCount, maximumPixels: Int = 300_000_000, usesCache: Bool = true,
        cacheFolder: String? = nil
    ) {
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
    /// The backbone's identifier, part of every cache key: hashed once, on the first cache lookup.
    private let backboneID: Lazy<String>
    private let network: Lazy<Result<EfficientNetLite0, WorkbenchError>>

    public init(backbone: Backbone, settings: FeatureSettings = FeatureSettings()) {
        self.backbone = backbone
        self.settings = settings
        cache = settings.usesCache ? FeatureCache(folder: settings.cacheFolder) : nil
        backboneID = Lazy { backbone.identifier }
        network = Lazy { Result { () throws(WorkbenchError) -> EfficientNetLite0 in try backbone.makeNetwork() } }
    }

    /// How images become the network's input: the backbone's (the model file's) preprocessing.
    public var preprocessing: ImagePreprocessing { backbone.preprocessing }

    /// Decoding straight to the network's input, within the pixel limit.
    public var decodeOptions: DecodeOptions {
        preprocessing.decodeOptions(maximumPixels: settings.maximumPixels)
    }

    /// The backbone's identifier (`Backbone.identifier`), hashed once per extractor, on first use.
    public var backboneIdentifier: String { backboneID.value }

    /// The network, built now if it was not yet.
    public func loadedNetwork() throws(WorkbenchError) -> EfficientNetLite0 { try network.value.get() }

    /// The features of one image file (from the cache when it has them).
    public func features(ofImageAt path: String) throws(WorkbenchError) -> [Float] {
        try features(ofImagesAt: [path])[0].get()
    }

    /// The features of one decoded image (cropped and resized here unless it already is the input size).
    public func features(of image: RGBImage) throws(WorkbenchError) -> [Float] {
        try network.value.get().features(preprocessing.networkInput(from: image), batch: 1)
    }

    /// Features of a few files, one result per file: cached ones are looked up, the rest decoded and run through
    /// the network as one batch (the late blocks then fetch their weights once for the whole batch).
    ///
    /// With `views`, each result holds every test-time view's features, `[views.count, 1280]`, and the cache is
    /// neither read nor written (it holds the plain view's features only).
    func features(ofImagesAt paths: [String], views: TestTimeViews? = nil) -> [Result<[Float], WorkbenchError>] {
        let cache = views == nil ? self.cache : nil
        let viewCount = views?.count ?? 1
        var results = [Result<[Float], WorkbenchError>?](repeating: nil, count: paths.count)
        var misses: [(slot: Int, key: FeatureCacheKey?)] = []
        var inputs: [Float] = []
        for (slot, path) in paths.enumerated() {
            // One open file is hashed and then decoded, so the features cached are those of the bytes hashed; a
            // FIFO, device or oversized file is refused here, before either.
            let file: InputFile
            do {
                file = try ImageLoader.open(path: path, options: decodeOptions)
            } catch {
                results[slot] = .failure(WorkbenchError(error))
                continue
            }
            var key: FeatureCacheKey?
            if let cache {
                do {
                    key = FeatureCacheKey(
                        contentHash: try ContentHash.of(file: file),
                        preprocessingID: preprocessing.canonicalJSON, backboneID: backboneIdentifier)
                } catch {
                    results[slot] = .failure(WorkbenchError(error))
                    continue
                }
                if let cached = cache.lookup(key!) {
                    results[slot] = .success(cached)
                    continue
                }
            }
            do {
                let image = try ImageLoader.decode(file: file, options: decodeOptions)
                if let views {
                    inputs += views.render(image, preprocessing: preprocessing)
                } else {
                    inputs += preprocessing.networkInput(from: image)
                }
                misses.append((slot, key))
            } catch {
                results[slot] = .failure(WorkbenchError(error))
            }
        }
        if !misses.isEmpty {
            do {
                let features = try network.value.get().features(inputs, batch: misses.count * viewCount)
                let width = EfficientNetLite0.featureCount * viewCount
                for (row, miss) in misses.enumerated() {
                    let vector = Array(features[(row * width)..<((row + 1) * width)])
                    // Finite weights can still overflow on extreme values; such a vector is no measurement.
                    guard vector.allSatisfy(\.isFinite) else {
                        results[miss.slot] = .failure(
                            WorkbenchError(
                                path: paths[miss.slot], reason: "the network's features are not finite numbers (overflow in the backbone's weights)"))
                        continue
                    }
                    if let key = miss.key { try? cache?.store(key, features: vector) }
                    results[miss.slot] = .success(vector)
                }
            } catch {
                for miss in misses { results[miss.slot] = .failure(error) }
            }
        }
        return results.map { $0! }
    }

    /// The most images a worker decodes and runs as one batch: enough for the late blocks to reuse their weights,
    /// few enough that memory stays small (8 inputs are 4.8 MB).
    public static let maximumBatch = 8

    /// The most worker threads the extractor runs, whatever the settings ask for: each holds a batch of inputs and
    /// a network's activations, so the cap keeps memory bounded.
    public static let mostWorkers = 256

    /// The worker threads in use: the settings' count within 1 ... `mostWorkers`.
    public var workerCount: Int { min(max(1, settings.threads), Self.mostWorkers) }

    /// Features of many files on the worker threads, delivered in input order on the calling thread. Memory stays
    /// bounded: each worker holds one small batch at a time. When `deliver` returns false no more files are
    /// started and the call returns (files already in progress are dropped).
    ///
    /// With `views` (test-time augmentation), each delivered vector holds every view's features,
    /// `[views.count, 1280]`, and a batch holds fewer files so that it holds no more network inputs.
    public func extract(
        paths: [String], views: TestTimeViews? = nil,
        deliver: (_ index: Int, _ path: String, _ result: Result<[Float], WorkbenchError>) -> Bool
    ) {
        let threads = workerCount
        // Small jobs still spread over every worker; large ones use full batches.
        let mostFiles = max(1, Self.maximumBatch / (views?.count ?? 1))
        let batch = max(1, min(mostFiles, paths.count / (2 * threads)))
        let jobs = stride(from: 0, to: paths.count, by: batch).map { $0..<min(paths.count, $0 + batch) }
        runOnWorkers(
            jobs: jobs, work: { [self] range in features(ofImagesAt: Array(paths[range]), views: views) },
            deliverUntil: { index, results in
                for (offset, result) in results.enumerated() {
                    let position = jobs[index].lowerBound + offset
                    if !deliver(position, paths[position], result) { return false }
                }
                return true
            })
    }

    /// Features of decoded images (video frames, already at the network's input size or cropped and resized here),
    /// `[images.count, EfficientNetLite0.featureCount]`: each worker runs one contiguous share as one network batch.
    /// With `views` (test-time augmentation), `[images.count, views.count, EfficientNetLite0.featureCount]`.
    public func features(ofDecoded images: [RGBImage], views: TestTimeViews? = nil) throws(WorkbenchError) -> [Float] {
        let network = try loadedNetwork()
        let viewCount = views?.count ?? 1
        var features: [Float] = []
        features.reserveCapacity(images.count * viewCount * EfficientNetLite0.featureCount)
        // A batch smaller than the worker count (a one-frame folder, the end of a video) has fewer shares.
        runOnWorkers(
            jobs: Parallel.shares(of: images.count, parts: workerCount),
            work: { range in
                let inputs = range.flatMap { index in
                    views.map { $0.render(images[index], preprocessing: self.preprocessing) }
                        ?? self.preprocessing.networkInput(from: images[index])
                }
                return network.features(inputs, batch: range.count * viewCount)
            },
            deliverUntil: { _, vectors in
                features += vectors
                return true
            })
        return features
    }

    /// The one scheduler of network work, for image files and video frames alike: each job (a range of inputs) runs
    /// on one of `workerCount` threads with BLAS single-threaded (the threads are the parallelism), and results
    /// come back in job order on the calling thread until `deliverUntil` returns false.
    private func runOnWorkers<JobResult>(
        jobs: [Range<Int>], work: @escaping @Sendable (Range<Int>) -> JobResult,
        deliverUntil: (_ job: Int, JobResult) -> Bool
    ) {
        GEMM.setBLASThreads(1)
        OrderedPipeline.run(count: jobs.count, threads: workerCount, work: { work(jobs[$0]) }, deliverUntil: deliverUntil)
    }
}

/// A value made on first use, once, whichever thread asks first.
private final class Lazy<Value>: @unchecked Sendable {
    private let make: () -> Value
    private let lock = NSLock()
    private var made: Value?

    init(_ make: @escaping () -> Value) { self.make = make }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        if made == nil { made = make() }
        return made!
    }
}
