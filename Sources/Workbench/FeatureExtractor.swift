import Foundation
import ImageCodecs
import Models
import TensorCore

/// Turns image files into 1280-d EfficientNet-Lite0 features: decode (shrinking while decoding), preprocess, run
/// the backbone. Immutable and safe to share between threads.
public final class FeatureExtractor: Sendable {
    /// The backbone.
    public let network: EfficientNetLite0
    /// How images are decoded (pixel limit, decode-time shrinking).
    public let decodeOptions: DecodeOptions
    /// The path the backbone was loaded from.
    public let backbonePath: String

    /// Loads the backbone from `backbonePath` (see `BackboneLocation.resolve`).
    public init(backbonePath: String, decodeOptions: DecodeOptions = DecodeOptions()) throws(WorkbenchError) {
        do {
            network = try EfficientNetLite0(weightsPath: backbonePath)
        } catch {
            throw WorkbenchError("\(error)")
        }
        self.backbonePath = backbonePath
        self.decodeOptions = decodeOptions
    }

    /// The features of one image file.
    public func features(ofImageAt path: String) throws(ImageError) -> [Float] {
        let image = try ImageLoader.load(path: path, options: decodeOptions)
        return features(of: image)
    }

    /// The features of one decoded image (cropped and resized here unless it is already 224 × 224).
    public func features(of image: RGBImage) -> [Float] {
        network.features(Preprocessing.networkInput(from: image), batch: 1)
    }

    /// Features of many files on `threads` worker threads (one image per thread at a time, BLAS single-threaded),
    /// delivered in input order on the calling thread. Memory stays bounded: only a few images are in flight.
    public func extract(
        paths: [String], threads: Int,
        deliver: (_ index: Int, _ path: String, _ result: Result<[Float], ImageError>) -> Void
    ) {
        GEMM.setBLASThreads(1)
        OrderedPipeline.run(count: paths.count, threads: threads, work: { [self] index in
            Result { () throws(ImageError) -> [Float] in try features(ofImageAt: paths[index]) }
        }, deliver: { index, result in
            deliver(index, paths[index], result)
        })
    }
}
