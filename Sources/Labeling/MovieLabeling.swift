import Augmentation
import FileFormats
import Foundation
import ImageCodecs
import Inference
import TensorCore
import Video

/// One movie (a video file or a folder of numbered frames) through a classifier, a frame every `every` seconds:
/// what `label`, `label --results` and `phases` each do to a movie.
public enum MovieLabeling {
    /// How frames are taken from a movie.
    public struct Sampling: Sendable {
        /// Seconds between sampled frames (video), or between numbered frames (folders, unless `framesPerSecond`).
        public var every: Double = 1
        /// The frame rate of a frame folder, when its frames are not `every` seconds apart.
        public var framesPerSecond: Double?
        public init(every: Double = 1, framesPerSecond: Double? = nil) {
            self.every = every
            self.framesPerSecond = framesPerSecond
        }
    }

    /// One labelled movie.
    public struct MovieResult: Sendable {
        public var path: String
        public var frames: [LabeledFrame]
        /// Frames of a frame folder that could not be decoded: skipped and counted, not fatal.
        public var skippedFrames: [SkippedFrame]
        /// Entries of a frame folder that cannot be read (names that are not UTF-8, broken links): one line each.
        public var unreadableEntries: [WorkbenchError] = []
        public var seconds: Double
    }

    /// A video's frames, decoded in segments by `parallelism` ffmpegs, or by one without; a still picture is
    /// refused in one line that points to classify, which labels pictures.
    private static func videoSource(
        path: String, every: Double, options: DecodeOptions,
        parallelism: Int?
    ) throws(WorkbenchError) -> FrameSource {
        do {
            if let parallelism {
                return try SegmentedVideoFrameSource(path: path, every: every, options: options, parallelism: parallelism)
            }
            return try VideoFrameSource(path: path, every: every, options: options)
        } catch  where error.kind == .stillPicture {
            throw WorkbenchError(
                path: path,
                reason: "is a picture, not a movie: label reads videos and folders of frames; "
                    + "workbench classify labels pictures")
        } catch {
            throw WorkbenchError(error)
        }
    }

    /// Labels one movie. Frames are decoded ahead on a reader thread (ffmpeg for video) while the network
    /// classifies the previous ones on the extractor's worker threads (`FeatureExtractor.features(ofDecoded:)`, the
    /// scheduler image files go through too). `observe`, if given, sees every frame with its probabilities, in
    /// order, on the calling thread (a review keeps a picture where the label changes). With `views` (test-time
    /// augmentation) each frame's probabilities are the mean over its views, at `views.count` times the network work.
    public static func label(
        movie path: String, classifier: Classifier, extractor: FeatureExtractor, sampling: Sampling,
        views: TestTimeViews? = nil, observe: ((_ frame: Frame, _ probabilities: [Float]) -> Void)? = nil,
        progress: @escaping (_ done: Int, _ expected: Int?) -> Void
    ) throws(WorkbenchError) -> MovieResult {
        let started = Date()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw WorkbenchError(path: path, reason: "no such video file or frames folder")
        }
        let threads = extractor.workerCount
        var skipped: [SkippedFrame] = []
        var unreadableEntries: [WorkbenchError] = []
        let source: FrameSource = try WorkbenchError.passingOn { () throws -> FrameSource in
            if isDirectory.boolValue {
                // Straight to the network's input while decoding: a frame never holds more than its crop.
                let options = extractor.decodeOptions
                let folder = try FrameFolder(
                    path: path, every: sampling.every, framesPerSecond: sampling.framesPerSecond,
                    load: { file throws(ImageError) in try ImageLoader.load(path: file, options: options) },
                    onSkip: { skipped.append($0) })
                unreadableEntries = folder.unreadableEntries.map { WorkbenchError(path: $0.path, reason: $0.reason) }
                return folder
            }
            // Decoding, not the network, sets the pace on long videos: one ffmpeg per core, a segment each.
            return try videoSource(
                path: path, every: sampling.every, options: extractor.decodeOptions,
                parallelism: threads > 1 ? min(threads, Parallel.coreCount) : nil)
        }
        // Decoding starts now, while the network is built; closing twice is harmless, so every exit closes it.
        let frameSource = PrefetchingFrameSource(source)
        frameSource.start()
        defer { frameSource.close() }
        let labeler = MovieLabeler(labels: classifier.labels, batchSize: FeatureExtractor.maximumBatch * threads)
        // Built now, so a broken backbone fails before the first batch.
        _ = try extractor.loadedNetwork()
        let classCount = classifier.labels.count
        let frames: [LabeledFrame] = try WorkbenchError.passingOn(naming: path) {
            try labeler.label(
                frameSource, sourcePath: path,
                classify: { batch in
                    let features = try extractor.features(ofDecoded: batch.map(\.image), views: views)
                    let probabilities =
                        views.map { classifier.probabilities(features: features, count: batch.count, views: $0) }
                        ?? classifier.probabilities(features: features, count: batch.count)
                    let rows = (0..<batch.count).map { Array(probabilities[($0 * classCount)..<(($0 + 1) * classCount)]) }
                    if let observe { for (frame, row) in zip(batch, rows) { observe(frame, row) } }
                    return rows
                }, progress: { update in progress(update.framesDone, update.totalFrames) })
        }
        return MovieResult(
            path: path, frames: frames, skippedFrames: skipped, unreadableEntries: unreadableEntries,
            seconds: Date().timeIntervalSince(started))
    }
}
