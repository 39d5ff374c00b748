import ImageCodecs
import TensorCore

/// Network inputs of augmented views, for a training loop that knows nothing of decoding: holds the training
/// images decoded once, reduced, and the policy; `fill(images:epoch:into:threads:)` writes
/// `[batch, 224, 224, 3]` inputs for any image indexes at any epoch.
///
/// **Decoding and memory.** Each image is decoded once, as the model's preprocessing decodes it but without its
/// crop: shrunk while decoding (JPEG DCT scaling, PNG box reduction) only as far as the centre crop stays at least
/// 448 pixels, so the shorter side kept is at most about 1,024 pixels (4.6 × the network's input) and at least 512
/// unless the file is smaller. With the augmentations off, a view is therefore bit for bit the input
/// `preprocessing` makes from the file. Decoded images are kept, in index order, until they would take more than
/// `memoryBudget` bytes (default 1 GiB: about 1,000 photos of 512 × 683); the images past the budget are decoded
/// again from their files each time a view of them is asked for (the same pixels, so the same views, only slower).
///
/// **Determinism.** View (`seed`, `epoch`, image) depends on nothing else: not on the thread count, not on the
/// order or the batch it is asked for in. Safe to share between threads.
public final class AugmentedInputs: Sendable {
    /// The policy every view follows.
    public let policy: AugmentationPolicy
    /// The seed views are drawn from.
    public let seed: UInt64
    /// The number of images.
    public var count: Int { sources.count }
    /// Bytes of decoded pixels held.
    public let keptBytes: Int
    /// How many images are held decoded (the rest are decoded again when needed).
    public let keptCount: Int

    /// 1 GiB of decoded pixels.
    public static let defaultMemoryBudget = 1 << 30

    private enum Source: Sendable {
        case decoded(RGBImage)
        case file(String)
    }
    /// How views become network inputs: the model's preprocessing (input side, centre crop, normalisation).
    public let preprocessing: ImagePreprocessing
    private let sources: [Source]
    private let decodeOptions: DecodeOptions

    /// The decoding that keeps what `preprocessing` needs, without its crop.
    public static func decodeOptions(maximumPixels: Int, preprocessing: ImagePreprocessing = .efficientNetLite0) -> DecodeOptions {
        var options = preprocessing.decodeOptions(maximumPixels: maximumPixels)
        options.cropAndResize = nil
        return options
    }

    /// Decodes the images at `paths` on `threads` threads, keeping them within `memoryBudget` bytes. Throws the
    /// first (lowest-index) image decoded now that fails (those past the budget fail when their views are asked
    /// for), or a policy out of range. `preprocessing` is the model's (the pretrained backbone's by default).
    public init(
        paths: [String], policy: AugmentationPolicy, seed: UInt64, preprocessing: ImagePreprocessing = .efficientNetLite0,
        maximumPixels: Int = 300_000_000, memoryBudget: Int = defaultMemoryBudget,
        threads: Int = Parallel.coreCount
    ) throws(AugmentationError) {
        try policy.validate()
        self.policy = policy
        self.seed = seed
        self.preprocessing = preprocessing
        let options = Self.decodeOptions(maximumPixels: maximumPixels, preprocessing: preprocessing)
        decodeOptions = options
        var sources: [Source] = paths.map { .file($0) }
        var keptBytes = 0, keptCount = 0
        var full = false
        // A group of `threads` images at a time, so no more than a group is held beyond the budget.
        let group = max(1, threads)
        var start = 0
        while start < paths.count && !full {
            let range = start..<min(paths.count, start + group)
            var results = [Result<RGBImage, ImageError>?](repeating: nil, count: range.count)
            results.withUnsafeMutableBufferPointer { buffer in
                let shared = UncheckedSendable(buffer)
                Parallel.forEach(range.count, threads: threads) { slot in
                    shared.value[slot] = Result { () throws(ImageError) -> RGBImage in
                        try ImageLoader.load(path: paths[range.lowerBound + slot], options: options)
                    }
                }
            }
            for (slot, result) in results.enumerated() {
                switch result! {
                case .success(let image):
                    if !full && keptBytes + image.pixels.count <= memoryBudget {
                        sources[range.lowerBound + slot] = .decoded(image)
                        keptBytes += image.pixels.count
                        keptCount += 1
                    } else {
                        full = true
                    }
                case .failure(let error):
                    throw AugmentationError(error)
                }
            }
            start = range.upperBound
        }
        self.sources = sources
        self.keptBytes = keptBytes
        self.keptCount = keptCount
    }

    /// Views of images already decoded (e.g. frames, or tests), all held whatever their size. An image without
    /// pixels is refused (no decoder makes one).
    public init(
        images: [RGBImage], policy: AugmentationPolicy, seed: UInt64,
        preprocessing: ImagePreprocessing = .efficientNetLite0
    ) throws(AugmentationError) {
        try policy.validate()
        if let empty = images.firstIndex(where: { $0.width == 0 || $0.height == 0 }) {
            throw AugmentationError(path: nil, reason: "image \(empty) has no pixels (\(images[empty].width)×\(images[empty].height))")
        }
        self.policy = policy
        self.seed = seed
        self.preprocessing = preprocessing
        sources = images.map { .decoded($0) }
        decodeOptions = Self.decodeOptions(maximumPixels: 300_000_000, preprocessing: preprocessing)
        keptBytes = images.reduce(0) { $0 + $1.pixels.count }
        keptCount = images.count
    }

    /// The decoded image `index` (from memory, or decoded again).
    public func source(_ index: Int) throws(AugmentationError) -> RGBImage {
        switch sources[index] {
        case .decoded(let image): return image
        case .file(let path):
            do {
                return try ImageLoader.load(path: path, options: decodeOptions)
            } catch {
                throw AugmentationError(error)
            }
        }
    }

    /// Writes the network inputs of `images` (indexes into this source) at `epoch` to `destination`,
    /// `[images.count, 224, 224, 3]`, the batch split over `threads` threads. Throws the first (lowest-slot) image
    /// that cannot be decoded again; the other slots are written regardless.
    public func fill(
        images: [Int], epoch: Int, into destination: UnsafeMutablePointer<Float>,
        threads: Int = Parallel.coreCount
    ) throws(AugmentationError) {
        precondition(images.allSatisfy { (0..<count).contains($0) }, "AugmentedInputs: image index out of range")
        var failures = [AugmentationError?](repeating: nil, count: images.count)
        let output = UncheckedSendable(destination)
        failures.withUnsafeMutableBufferPointer { buffer in
            let shared = UncheckedSendable(buffer)
            Parallel.forEach(images.count, threads: threads) { slot in
                let target = output.value + slot * preprocessing.inputCount
                switch Result(catching: { () throws(AugmentationError) -> RGBImage in try source(images[slot]) }) {
                case .success(let image):
                    AugmentedView.render(
                        image, policy: policy, seed: seed, epoch: epoch, image: images[slot],
                        preprocessing: preprocessing, into: target)
                case .failure(let error):
                    shared.value[slot] = error
                    target.update(repeating: 0, count: preprocessing.inputCount)
                }
            }
        }
        if let first = failures.compactMap({ $0 }).first { throw first }
    }

    /// The network inputs of `images` at `epoch` as a new array `[images.count, 224, 224, 3]`.
    public func inputs(images: [Int], epoch: Int, threads: Int = Parallel.coreCount) throws(AugmentationError) -> [Float] {
        var result = [Float](repeating: 0, count: images.count * preprocessing.inputCount)
        if images.isEmpty { return result }
        try result.withUnsafeMutableBufferPointer { buffer throws(AugmentationError) in
            try fill(images: images, epoch: epoch, into: buffer.baseAddress!, threads: threads)
        }
        return result
    }
}
