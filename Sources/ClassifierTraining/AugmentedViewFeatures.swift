import Augmentation
import FileFormats
import ImageCodecs
import Inference
import LogisticHead
import Models
import TensorCore

/// Features of augmented views of the training images, for the frozen head (`train --augment N`): each training
/// image gives N more rows, made on the fly (decoded once, `AugmentedInputs`) and run through the backbone.
///
/// View v (1...N) of image i is `AugmentedInputs`' view at epoch v, so it depends on (seed, v, i) alone, never on
/// threads. Views are not cached: each is a new picture, so a cache keyed by (file, policy, seed, view) would only
/// pay on a rerun with exactly the same settings, for 5 KB on disk per view; the originals' features stay cached.
public enum AugmentedViewFeatures {
    /// The most views per image: each is one more pass of the network over the training images.
    public static let maximumViews = 20

    /// The feature rows of `views` views of each image at `paths` (view by view: every image's first view, then
    /// every image's second, ...), with the index of the image each row was made from. A view whose features are not
    /// finite is left out. `progress(done, total)` is called on the calling thread after each round of batches.
    public static func compute(
        paths: [String], views: Int, policy: AugmentationPolicy, seed: UInt64, extractor: FeatureExtractor,
        progress: (_ done: Int, _ total: Int) -> Void
    ) throws(WorkbenchError) -> DerivedRows {
        precondition((0...maximumViews).contains(views), "AugmentedViewFeatures: views out of range")
        if views == 0 || paths.isEmpty { return .none }
        let threads = max(1, extractor.settings.threads)
        let inputs = try WorkbenchError.passingOn {
            try AugmentedInputs(
                paths: paths, policy: policy, seed: seed, preprocessing: extractor.preprocessing,
                maximumPixels: extractor.settings.maximumPixels, threads: threads)
        }
        let network = try extractor.loadedNetwork()
        GEMM.setBLASThreads(1)
        // Batches of up to 8 images of one view, as the feature extractor runs them; one batch per thread at a time.
        let batch = FeatureExtractor.maximumBatch
        var chunks: [(view: Int, images: Range<Int>)] = []
        for view in 1...views {
            for start in stride(from: 0, to: paths.count, by: batch) {
                chunks.append((view, start..<min(paths.count, start + batch)))
            }
        }
        let width = EfficientNetLite0.featureCount
        var features: [Float] = []
        var owners: [Int] = []
        features.reserveCapacity(views * paths.count * width)
        owners.reserveCapacity(views * paths.count)
        var done = 0
        for roundStart in stride(from: 0, to: chunks.count, by: threads) {
            let round = Array(chunks[roundStart..<min(chunks.count, roundStart + threads)])
            var results = [Result<[Float], AugmentationError>?](repeating: nil, count: round.count)
            results.withUnsafeMutableBufferPointer { buffer in
                let shared = UncheckedSendable(buffer)
                Parallel.forEach(round.count, threads: threads) { slot in
                    let chunk = round[slot]
                    shared.value[slot] = Result { () throws(AugmentationError) -> [Float] in
                        let pixels = try inputs.inputs(images: Array(chunk.images), epoch: chunk.view, threads: 1)
                        return network.features(pixels, batch: chunk.images.count)
                    }
                }
            }
            for (slot, result) in results.enumerated() {
                switch result! {
                case .success(let rows):
                    for (offset, image) in round[slot].images.enumerated() {
                        let row = rows[(offset * width)..<((offset + 1) * width)]
                        // Finite weights can still overflow on extreme inputs; such a vector is no measurement.
                        guard row.allSatisfy(\.isFinite) else { continue }
                        features += row
                        owners.append(image)
                    }
                    done += round[slot].images.count
                case .failure(let error):
                    throw WorkbenchError(error)
                }
            }
            progress(done, views * paths.count)
        }
        return DerivedRows(features: features, owners: owners)
    }
}

/// Step 2b of `TrainingRun.run`: the features of the augmented views of the training images (none unless
/// `request.augmentedViews` > 0).
struct TrainingViews {
    var rows: DerivedRows

    /// Makes `request.augmentedViews` views of each training image with `request.augmentation`, seeded by
    /// `request.seed`.
    static func make(
        _ request: TrainingRequest, training: LabeledFeatures, extractor: FeatureExtractor,
        events: (TrainingEvent) -> Void
    ) throws(WorkbenchError) -> TrainingViews {
        guard request.augmentedViews > 0 else { return TrainingViews(rows: .none) }
        guard (1...AugmentedViewFeatures.maximumViews).contains(request.augmentedViews) else {
            throw WorkbenchError("augmented views must be between 0 and \(AugmentedViewFeatures.maximumViews), got \(request.augmentedViews)")
        }
        let rows = try AugmentedViewFeatures.compute(
            paths: training.paths, views: request.augmentedViews, policy: request.augmentation, seed: request.seed,
            extractor: extractor
        ) { done, total in events(.views(done: done, total: total)) }
        return TrainingViews(rows: rows)
    }

    /// The training images followed by their views (each with its image's label and file).
    func trainingWithViews(_ training: LabeledFeatures) -> LabeledFeatures {
        guard !rows.owners.isEmpty else { return training }
        return LabeledFeatures(
            features: training.features + rows.features,
            labels: training.labels + rows.owners.map { training.labels[$0] },
            paths: training.paths + rows.owners.map { training.paths[$0] })
    }
}
