import Augmentation
import Foundation
import ImageCodecs
import Labeling
import TensorCore
import Video

/// `workbench label`: a trained model over movies (video files or folders of numbered frames), one frame every
/// `every` seconds, giving per-frame labels from which markers, summaries and highlight reels are made.
public enum LabelingWorkflow {
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

extension LabelingWorkflow {
    /// `workbench label` without `--results`: labels every movie in turn, writes the player file, the highlight
    /// reel and the review files, and reports each step to `events`. With several movies a movie that fails is
    /// reported and counted and the others go on; a single movie's failure is thrown. Each movie's markers go into
    /// the player file (one locked update) as soon as it is labelled, so a later failure keeps them.
    public static func run(
        _ request: LabelingRequest, classifier: Classifier, extractor: FeatureExtractor,
        events: @escaping (LabelingEvent) -> Void
    ) throws(WorkbenchError) -> LabelingOutcome {
        // The fallback may be any name; a highlight must be a label the model can give.
        if let label = request.highlights?.label, !classifier.labels.contains(label) {
            throw WorkbenchError(
                path: classifier.path, reason: "the model has no label '\(label)' (labels: \(classifier.labels.joined(separator: ", ")))")
        }
        if let size = request.highlights?.size, !HighlightFormat.isValid(size) {
            throw WorkbenchError(
                path: request.highlights?.output,
                reason: "a reel of \(size.width) × \(size.height) pixels: each side must be even, "
                    + "from \(HighlightFormat.sides.lowerBound) to \(HighlightFormat.sides.upperBound)")
        }
        try request.checkOutputs(modelPath: classifier.path)
        if let entry = request.movieData, FileManager.default.fileExists(atPath: entry.path) {
            // A broken MovieData.json fails before the long labeling run, and is never overwritten.
            try ShardedLabeling.checkMovieData(entry.path)
        }
        let movieIDs = try request.movieData?.ids(of: request.movies)
        let minimumConfidence = try request.settings.minimumConfidence(for: classifier)
        let policy = try request.settings.markerPolicy(for: classifier)
        let views = classifier.testTimeViews(requested: request.settings.testTimeAugmentation)
        let review =
            request.review.isRequested
            ? LabelingReview(
                labels: classifier.labels, policy: policy, every: request.settings.every,
                keepsPictures: request.review.html != nil, preprocessing: classifier.preprocessing) : nil
        review?.windowSeconds = request.window
        var summaries: [VideoSummary] = []
        var outcome = LabelingOutcome(frames: 0, labeledMovies: 0, failedMovies: [], seconds: 0)
        let started = Date()
        for (position, movie) in request.movies.enumerated() {
            events(.started(movie: movie))
            let result: MovieResult
            do throws(WorkbenchError) {
                result = try label(
                    movie: movie, classifier: classifier, extractor: extractor,
                    sampling: request.settings.sampling, views: views, observe: review?.observerForNextMovie(),
                    progress: { events(.progress(done: $0, expected: $1)) })
            } catch  where request.movies.count > 1 {
                // One strange file never costs a catalog run the other movies: it is named, skipped, counted.
                events(.failed(movie: movie, error))
                outcome.failedMovies.append(movie)
                continue
            }
            events(.finished(movie: movie))
            outcome.frames += result.frames.count
            outcome.labeledMovies += 1
            for problem in result.unreadableEntries { events(.warning("warning: \(problem) (not a frame)")) }
            for skipped in result.skippedFrames { events(.warning("warning: \(skipped.error) (frame skipped)")) }
            let summary = VideoSummary(video: movie, labels: classifier.labels, frames: result.frames, window: request.window)
            summaries.append(summary)
            review?.add(result, summary: request.showsSummaries ? summary : nil)
            let markers = policy.markerObject(result.frames)
            events(
                .labeled(
                    LabeledMovie(
                        result: result, decisions: policy.decisions(result.frames), markers: markers,
                        summary: summary, minimumConfidence: minimumConfidence)))
            if let entry = request.movieData, let id = movieIDs?[position] {
                let update = MovieUpdate(
                    id: id, markers: markers, title: entry.title,
                    description: entry.description, poster: entry.poster)
                try WorkbenchError.passingOn { try MovieData.update(path: entry.path, with: update) }
                events(.movieDataWritten(markers: markers.count, path: entry.path, id: id))
            }
            if !result.skippedFrames.isEmpty { events(.warning("\(result.skippedFrames.count) unreadable frames skipped in \(movie)")) }
        }
        if let highlights = request.highlights {
            let selection: HighlightSelection = highlights.count.map { .topVideos(count: $0) } ?? .videosWhereTopLabel
            let clips = Highlights.choose(label: highlights.label, from: summaries, selection: selection)
            guard !clips.isEmpty else {
                throw WorkbenchError("no video has '\(highlights.label)' as its top label: ask for the best-scoring videos instead")
            }
            let reel = try WorkbenchError.passingOn {
                try Highlights.render(clips, label: highlights.label, to: highlights.output, size: highlights.size)
            }
            events(.highlightsWritten(reel))
        }
        if let review { try write(review, files: request.review, modelPath: classifier.path, events: events) }
        outcome.seconds = Date().timeIntervalSince(started)
        return outcome
    }

    /// Writes the review files asked for, reporting each.
    private static func write(
        _ review: LabelingReview, files: ReviewFiles, modelPath: String, events: (LabelingEvent) -> Void
    ) throws(WorkbenchError) {
        var subtitles: [String] = [], copies: [String]?
        if let vtt = files.vtt { subtitles = try review.writeSubtitles(to: vtt) }
        if let annotate = files.annotate { copies = try review.annotate(to: annotate) }
        if let html = files.html {
            // After the copies: the page may play one of them (`PageVideo`).
            for choice in try review.choosePageVideos(page: html, annotatedCopies: copies, reserved: subtitles) { events(.pageVideo(choice)) }
            try review.writePage(to: html, modelPath: modelPath)
            events(.reviewWritten(.page, path: html))
        }
        for path in subtitles { events(.reviewWritten(.subtitles, path: path)) }
        for path in copies ?? [] { events(.reviewWritten(.annotatedCopy, path: path)) }
    }
}
