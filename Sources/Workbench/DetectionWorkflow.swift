import Datasets
import Detection
import Foundation
import ImageCodecs
import Video

/// `workbench detect`: a detector's boxes on pictures, or on video frames sampled every `every` seconds with the
/// clips of the presence rule (`PresenceClips`), and the files to look at (annotated copies, clips, captions, page).
///
/// Pictures are decoded at full size with EXIF rotation applied, so boxes are in pixels of the picture as
/// displayed; video frames are decoded by ffmpeg at their full upright size. Every output is checked before any
/// work (no output may be an input or another output), and each is written whole or not at all.
public enum DetectionWorkflow {
    /// Runs `request` with the detector it names, loaded for `request.threads` worker threads.
    public static func run(_ request: DetectionRequest, events: (DetectionEvent) -> Void) throws(WorkbenchError) -> DetectionResult {
        switch request.detector {
        case .person(let path):
            if request.mirror { throw WorkbenchError("mirror averaging is for detector models trained by workbench train, not the person detector") }
            let file = try DetectorLocation.resolve(explicit: path)
            let detector = try WorkbenchError.passingOn { try ObjectDetector.load(path: file, threads: request.threads) }
            return try run(request, detector: detector, events: events)
        case .model(let path):
            let loaded = try LoadedDetector.load(path: path, settings: FeatureSettings(threads: 1, usesCache: false))
            return try run(request, detector: TrainedObjectDetector(loaded, threads: request.threads, mirror: request.mirror), events: events)
        }
    }

    /// Runs `request` with `detector` instead of the one it names (any `ObjectDetecting`: a program's own).
    public static func run(
        _ request: DetectionRequest, detector: some ObjectDetecting,
        events: (DetectionEvent) -> Void
    ) throws(WorkbenchError) -> DetectionResult {
        let started = Date()
        var request = request
        request.resolvedMinimumConfidence = request.minimumConfidence ?? detector.defaultMinimumConfidence
        if let label = request.label, !detector.labels.contains(label) {
            throw WorkbenchError("unknown label '\(label)': the detector knows \(detector.labels.map { "'\($0)'" }.joined(separator: ", "))")
        }
        var outcome = DetectionResult()
        let inputs = try sortedInputs(request.inputs)
        if let list = inputs.pictures {
            if request.clips != nil || request.vtt != nil || request.html != nil {
                throw WorkbenchError(
                    reason: "clips, presence captions and a presence page are for videos; these inputs are pictures",
                    hint: .videoOutputsOnPictures)
            }
            outcome = try detectPictures(list, request: request, detector: detector, events: events)
        } else {
            outcome.videos = try detectVideos(inputs.videos, request: request, detector: detector, events: events)
        }
        outcome.seconds = Date().timeIntervalSince(started)
        return outcome
    }

    // MARK: Inputs

    /// The run's pictures (folders expanded; none is an error) or videos, sorted by `DetectionInputs`.
    static func sortedInputs(_ inputs: [String]) throws(WorkbenchError) -> (pictures: ImageFileList?, videos: [String]) {
        switch try WorkbenchError.passingOn({ try DetectionInputs.sort(inputs) }) {
        case .videos(let videos): return (nil, videos)
        case .pictures(let pictures):
            let list = try ImageFileList.expand(pictures)
            guard list.count > 0 else { throw WorkbenchError("no pictures in \(inputs.joined(separator: ", "))") }
            return (list, [])
        }
    }

    // MARK: Pictures

    private static func detectPictures(
        _ list: ImageFileList, request: DetectionRequest, detector: some ObjectDetecting,
        events: (DetectionEvent) -> Void
    ) throws(WorkbenchError) -> DetectionResult {
        var copies: [String] = []
        if let folder = request.annotate {
            copies = DetectionOutputNames.annotatedPictures(list.files, folder: folder)
            try WritableOutput.checkConflicts(inputs: list.files + weights(request.detector), outputs: copies)
            try prepareFolder(folder)
        }
        var outcome = DetectionResult()
        for problem in list.unreadable { events(.skipped(problem)) }
        outcome.failed = list.unreadable.count
        let options = DecodeOptions(maximumPixels: request.maximumPixels, minimumCropSide: nil)
        for (index, path) in list.files.enumerated() {
            let image: RGBImage
            do {
                image = try ImageLoader.load(path: path, options: options)
            } catch {
                events(.skipped(WorkbenchError(path: error.path, reason: error.reason)))
                outcome.failed += 1
                continue
            }
            let found = TiledDetection.detect(
                in: image, tilesPerSide: request.tilesPerSide,
                minimumConfidence: request.resolvedMinimumConfidence, detector: detector)
            let objects = VideoSampling.filtered(found, label: request.label)
            let result = PictureDetection(path: path, objects: objects, width: image.width, height: image.height)
            if !copies.isEmpty {
                try WorkbenchError.passingOn {
                    try BoxOverlay.renderPicture(image, boxes: objects.map(DetectionOverlay.box), name: path, to: copies[index])
                }
                events(.wrote(copies[index]))
            }
            events(.picture(result))
            outcome.pictures.append(result)
        }
        return outcome
    }

    /// The detector's file the run reads, which no output may replace: the model, or the person detector's
    /// weights where `DetectorLocation` finds them.
    static func weights(_ detector: DetectionRequest.Detector) -> [String] {
        switch detector {
        case .person(let path): return [try? DetectorLocation.resolve(explicit: path)].compactMap { $0 }
        case .model(let path): return [path]
        }
    }

    /// Creates `folder` if missing; refuses a file that is not a folder.
    private static func prepareFolder(_ folder: String) throws(WorkbenchError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw WorkbenchError(path: folder, reason: "not a folder (annotated copies and clips go into a folder)")
            }
            return
        }
        try WorkbenchError.passingOn { try FolderCreation.create(folder) }
    }

    // MARK: Videos

    private static func detectVideos(
        _ videos: [String], request: DetectionRequest, detector: some ObjectDetecting,
        events: (DetectionEvent) -> Void
    ) throws(WorkbenchError) -> [VideoDetection] {
        // Every video is probed first: a file that is not a video stops the run before anything is written.
        let (tools, probes) = try WorkbenchError.passingOn {
            let tools = try ExternalTools.locate(for: videos[0])
            let probes = try videos.map { video in
                let probe = try VideoProbe.probe(path: video, tools: tools)
                try SamplingLimits.check(every: request.every, video: probe, path: video)
                return probe
            }
            return (tools, probes)
        }
        let annotated = try request.annotate.map { destination throws(WorkbenchError) in
            try PerInputOutputs.paths(inputs: videos, destination: destination, fileExtension: "mp4")
        }
        let captions = try request.vtt.map { destination throws(WorkbenchError) in
            try PerInputOutputs.paths(inputs: videos, destination: destination, fileExtension: "vtt")
        }
        try WorkbenchError.passingOn { for copy in annotated ?? [] { try VideoContainer.check(output: copy) } }
        let read = videos + weights(request.detector)
        // A preview is made only for a video browsers cannot play, but its name is fixed now, with the others'.
        let previews = request.html.map { html in
            PageVideo.previewPaths(page: html, videos: videos, reserved: videos + (annotated ?? []) + (captions ?? []) + [html])
        }
        try WritableOutput.checkConflicts(
            inputs: read, outputs: (annotated ?? []) + (captions ?? []) + [request.html] + (previews ?? []),
            filledFolders: request.clips.map { [DetectionOutputNames.Clips.folder($0, videos: videos)] } ?? [])
        if let clips = request.clips { try prepareFolder(clips) }
        for output in (annotated ?? []) + (captions ?? []) + [request.html].compactMap({ $0 }) { try WritableOutput.check(output) }
        let review = DetectionReview(
            presenceLabel: request.label ?? (detector.labels.count == 1 ? detector.labels[0] : "object"),
            keepsPictures: request.html != nil)
        let sampling = VideoSampling(
            every: request.every, tilesPerSide: request.tilesPerSide,
            minimumConfidence: request.resolvedMinimumConfidence, label: request.label,
            clipRule: request.clipRule, maximumPixels: request.maximumPixels)
        var results: [VideoDetection] = []
        var clipNames = DetectionOutputNames.Clips()
        for (index, video) in videos.enumerated() {
            review.startVideo()
            var result = try WorkbenchError.passingOn {
                try sampling.sample(
                    video, probe: probes[index], detector: detector,
                    started: { events(.videoStarted(path: video, expectedSamples: $0)) },
                    observe: { review.observe(frame: $0, objects: $1) },
                    progress: { events(.progress(done: $0, expected: $1)) })
            }
            if let folder = request.clips {
                for clipIndex in result.clips.indices {
                    let path = clipNames.path(video: video, index: clipIndex, folder: folder)
                    try WritableOutput.checkConflicts(inputs: read, outputs: [path])
                    let clip = result.clips[clipIndex].clip
                    try WorkbenchError.passingOn {
                        try BoxOverlay.renderVideo(
                            video, samples: DetectionOverlay.samples(result), start: clip.start, end: clip.end,
                            to: path, tools: tools)
                    }
                    result.clips[clipIndex].file = path
                    events(.wrote(path))
                }
            }
            if let annotated {
                try WorkbenchError.passingOn {
                    try BoxOverlay.renderVideo(video, samples: DetectionOverlay.samples(result), to: annotated[index], tools: tools)
                }
                events(.wrote(annotated[index]))
            }
            if let captions {
                try WorkbenchError.passingOn(context: "cannot write the captions") {
                    try AtomicFile.write(text: review.captions(result), to: captions[index])
                }
                events(.wrote(captions[index]))
            }
            var pageFile: String?
            if let previews {
                let choice = try PageVideo.choose(video: video, annotatedCopy: annotated?[index], preview: previews[index], tools: tools)
                if choice.source == .preview { events(.wrote(choice.file)) }
                events(.pageVideo(choice))
                pageFile = choice.file
            }
            review.add(result, pageFile: pageFile)
            events(.video(result))
            results.append(result)
        }
        if let html = request.html {
            try review.writePage(to: html, every: request.every, minimumConfidence: request.resolvedMinimumConfidence)
            events(.wrote(html))
        }
        return results
    }
}
