import Augmentation
import Foundation
import ImageCodecs
import Inference
import Labeling
import TensorCore
import Video

/// `workbench label`: a trained model over movies (video files or folders of numbered frames), one frame every
/// `every` seconds, giving per-frame labels from which markers, summaries and highlight reels are made. One movie's
/// labeling is `Labeling.MovieLabeling`; this is the run over the movies and the files it writes.
public enum LabelingWorkflow {}

extension LabelingWorkflow {
    /// `workbench label` without `--results`: reads the model, labels every movie in turn, writes the player file, the highlight
    /// reel and the review files, and reports each step to `events`. With several movies a movie that fails is
    /// reported and counted and the others go on; a single movie's failure is thrown. Each movie's markers go into
    /// the player file (one locked update) as soon as it is labelled, so a later failure keeps them.
    public static func run(
        _ request: LabelingRequest, events: @escaping (LabelingEvent) -> Void = { _ in }
    ) throws(WorkbenchError) -> LabelingResult {
        let classifier = try request.model.load()
        let extractor = FeatureExtractor(backbone: classifier.backbone, settings: request.features)
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
        var outcome = LabelingResult(frames: 0, labeledMovies: 0, failedMovies: [], seconds: 0)
        let started = Date()
        for (position, movie) in request.movies.enumerated() {
            events(.started(movie: movie))
            let result: MovieLabeling.MovieResult
            do throws(WorkbenchError) {
                result = try MovieLabeling.label(
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
