import Datasets
import Detection
import Foundation
import ImageCodecs
import Video

/// What `workbench detect` is asked to do: pictures (files or folders) or videos, never both in one call.
public struct DetectionRequest: Sendable {
    /// Pictures, folders of pictures, or video files, as given.
    public var inputs: [String]
    /// Boxes scoring below this are not reported (0–1); nil is the detector's default
    /// (`ObjectDetecting.defaultMinimumConfidence`: a trained model's stored threshold, 0.5 for the person detector).
    public var minimumConfidence: Float?
    /// `minimumConfidence`, or the detector's default once the run knows its detector.
    var resolvedMinimumConfidence: Float = 0.5
    /// Report only this label; nil reports every label the detector knows.
    public var label: String?
    /// `TiledDetection`'s grid side; 1 runs the detector on the whole frame only.
    public var tilesPerSide = 1
    /// Seconds between sampled video frames.
    public var every = 0.2
    /// When a clip starts and stops.
    public var clipRule = PresenceClips.Rule()
    /// Annotated copies: a folder for pictures; a file for one video or a folder for several.
    public var annotate: String?
    /// The folder the clips go into (videos only), created if missing.
    public var clips: String?
    /// WebVTT presence captions: a file for one video or a folder for several.
    public var vtt: String?
    /// The presence timeline page (videos only).
    public var html: String?
    /// Pictures over this many pixels are refused from their header.
    public var maximumPixels = 300_000_000
    /// A trained detector model's answer on each picture, frame or tile averaged with its mirror's before the boxes
    /// are read (`--tta`, `MirrorAveraging`): twice the network's work. The person detector refuses it.
    public var mirror = false

    /// A request over `inputs` with the defaults.
    public init(inputs: [String]) {
        self.inputs = inputs
    }
}

/// One picture's boxes.
public struct PictureDetection: Sendable {
    /// The picture as given on the command line or found in a folder.
    public var path: String
    /// The boxes, in pixels of the picture as displayed (EXIF rotation applied), highest score first.
    public var objects: [DetectedObject]
    /// The picture's size as displayed.
    public var width: Int, height: Int
}

/// One video's samples and clips.
public struct VideoDetection: Sendable {
    /// One sampled frame.
    public struct Sample: Sendable {
        /// Seconds from the start of the video.
        public var time: Double
        /// The boxes, in pixels of the upright frame, highest score first.
        public var objects: [DetectedObject]
    }

    /// A clip and the file it was written to, if clips were asked for.
    public struct Clip: Sendable {
        /// Where in the video, and why it ended.
        public var clip: PresenceClip
        /// The MP4 file (`--clips`), nil when only computed.
        public var file: String?
    }

    /// The video as given.
    public var path: String
    /// Every sample, in time order.
    public var samples: [Sample]
    /// The clips of the presence rule.
    public var clips: [Clip]
    /// The video's length in seconds (ffprobe's, else one interval past the last sample).
    public var duration: Double
    /// The frame size, upright.
    public var width: Int, height: Int
}

/// What a detection run reports as it goes.
public enum DetectionEvent: Sendable {
    /// A picture that cannot be read: skipped and counted, the run goes on.
    case skipped(WorkbenchError)
    /// A picture is done.
    case picture(PictureDetection)
    /// Sampling of a video starts; `expectedSamples` from its probed duration, when known.
    case videoStarted(path: String, expectedSamples: Int?)
    /// Samples of the current video done so far.
    case progress(done: Int, expected: Int?)
    /// A video is done (its clips written, when asked for).
    case video(VideoDetection)
    /// A file was written: an annotated copy, a clip, captions or the page.
    case wrote(String)
}

/// The end of a detection run.
public struct DetectionOutcome: Sendable {
    /// The pictures done, in input order (empty for videos).
    public var pictures: [PictureDetection] = []
    /// The videos done, in input order (empty for pictures).
    public var videos: [VideoDetection] = []
    /// Pictures that could not be read.
    public var failed = 0
    /// Wall-clock seconds.
    public var seconds = 0.0
}

/// `workbench detect`: a detector's boxes on pictures, or on video frames sampled every `every` seconds with the
/// clips of the presence rule (`PresenceClips`), and the files to look at (annotated copies, clips, captions, page).
///
/// Pictures are decoded at full size with EXIF rotation applied, so boxes are in pixels of the picture as
/// displayed; video frames are decoded by ffmpeg at their full upright size. Every output is checked before any
/// work (no output may be an input or another output), and each is written whole or not at all.
public enum DetectionWorkflow {
    /// Frames decoded ahead of the detector: full frames are large, and the detector is the slower side.
    static let prefetchedFrames = 8
    /// Video frames handed to the detector at once: enough for the worker threads of a small machine, few
    /// enough that full frames cost little memory.
    static let framesPerBatch = 4

    /// The kind of input a run has.
    enum Inputs {
        case pictures(ImageFileList)
        case videos([String])
    }

    /// Why the person detector refuses `DetectionRequest.mirror`; `detect`'s option check says the same.
    public static let mirrorRefusal = "--tta (mirror averaging) is for detector models trained by workbench train (--model), not the person detector"

    /// Runs `request` with the detector file `DetectorLocation` finds (`detectorPath`, else `$WORKBENCH_DETECTOR`,
    /// else the installed or set-up copy), loaded for `threads` worker threads.
    public static func run(_ request: DetectionRequest, detectorPath: String?, threads: Int,
                           events: (DetectionEvent) -> Void) throws(WorkbenchError) -> DetectionOutcome {
        if request.mirror { throw WorkbenchError(mirrorRefusal) }
        let path = try DetectorLocation.resolve(explicit: detectorPath)
        let detector: ObjectDetector
        do {
            detector = try ObjectDetector.load(path: path, threads: threads)
        } catch {
            throw WorkbenchError(error)
        }
        return try run(request, detector: detector, events: events)
    }

    /// Runs `request` with the trained detector model at `modelPath` (`train` on annotations writes one), its
    /// maps computed on `threads` worker threads; the minimum score defaults to the model's stored threshold.
    public static func run(_ request: DetectionRequest, modelPath: String, threads: Int,
                           events: (DetectionEvent) -> Void) throws(WorkbenchError) -> DetectionOutcome {
        let loaded = try LoadedDetector.load(path: modelPath, settings: FeatureSettings(threads: 1, usesCache: false))
        return try run(request, detector: TrainedObjectDetector(loaded, threads: threads, mirror: request.mirror), events: events)
    }

    /// Runs `request` with `detector` (any `ObjectDetecting`; the command line's is the person detector).
    public static func run(_ request: DetectionRequest, detector: some ObjectDetecting,
                           events: (DetectionEvent) -> Void) throws(WorkbenchError) -> DetectionOutcome {
        let started = Date()
        var request = request
        request.resolvedMinimumConfidence = request.minimumConfidence ?? detector.defaultMinimumConfidence
        if let label = request.label, !detector.labels.contains(label) {
            throw WorkbenchError("unknown label '\(label)': the detector knows \(detector.labels.map { "'\($0)'" }.joined(separator: ", "))")
        }
        var outcome = DetectionOutcome()
        switch try classify(request.inputs) {
        case .pictures(let list):
            if request.clips != nil || request.vtt != nil || request.html != nil {
                throw WorkbenchError("--clips, --vtt and --html are for videos; these inputs are pictures")
            }
            outcome = try detectPictures(list, request: request, detector: detector, events: events)
        case .videos(let videos):
            outcome.videos = try detectVideos(videos, request: request, detector: detector, events: events)
        }
        outcome.seconds = Date().timeIntervalSince(started)
        return outcome
    }

    // MARK: Inputs

    /// Sorts the inputs: folders and JPEG or PNG files (by their first bytes, else by their name) are pictures,
    /// any other file a video (ffprobe decides later whether it is one). A mix is refused, naming one of each.
    static func classify(_ inputs: [String]) throws(WorkbenchError) -> Inputs {
        guard !inputs.isEmpty else { throw WorkbenchError("no pictures or videos given") }
        var pictures: [String] = [], videos: [String] = []
        for input in inputs {
            var status = stat()
            guard stat(input, &status) == 0 else {
                throw WorkbenchError(path: input, reason: lstat(input, &status) == 0 ? "broken symbolic link" : "no such file or folder")
            }
            if FolderWalk.isFolder(input) || ImageFileCheck.verdict(path: input) == .image {
                pictures.append(input)
            } else {
                videos.append(input)
            }
        }
        if let picture = pictures.first, let video = videos.first {
            throw WorkbenchError(path: video, reason: "pictures and videos are not mixed in one call: \(picture) is a picture, "
                                 + "this a video (or not a picture); run detect once for each")
        }
        if !videos.isEmpty { return .videos(videos) }
        let list = try ImageFileList.expand(pictures)
        guard list.count > 0 else { throw WorkbenchError("no pictures in \(inputs.joined(separator: ", "))") }
        return .pictures(list)
    }

    /// `--label` applied: the objects of that label only.
    static func filtered(_ objects: [DetectedObject], label: String?) -> [DetectedObject] {
        guard let label else { return objects }
        return objects.filter { $0.label == label }
    }

    /// A box's caption: `person 0.87`. A label holding bidi controls (a trained detector's, from its file) is
    /// isolated, so it cannot reverse the score beside it; others are drawn as they are.
    public static func caption(_ object: DetectedObject) -> String {
        let label = object.label.unicodeScalars.contains(where: DisplayText.isBidiControl) ? DisplayText.isolated(object.label) : object.label
        return "\(label) " + String(format: "%.2f", object.confidence)
    }

    static func overlayBox(_ object: DetectedObject) -> BoxOverlay.Box {
        BoxOverlay.Box(left: object.box.left, top: object.box.top, width: object.box.width, height: object.box.height,
                       text: caption(object))
    }

    // MARK: Pictures

    /// Where each picture's annotated copy goes: `folder/<name>` keeping a `.png` or `.jpg` ending (others become
    /// `.jpg`), with `-2`, `-3` … when two pictures share a name.
    public static func annotatedPicturePaths(_ pictures: [String], folder: String) -> [String] {
        var used: Set<String> = []
        return pictures.map { picture in
            let url = URL(fileURLWithPath: picture)
            let ending = url.pathExtension.lowercased()
            let fileExtension = ["png", "jpg", "jpeg"].contains(ending) ? ending : "jpg"
            let stem = url.deletingPathExtension().lastPathComponent
            var name = "\(stem).\(fileExtension)", number = 2
            while used.contains(name) {
                name = "\(stem)-\(number).\(fileExtension)"
                number += 1
            }
            used.insert(name)
            return URL(fileURLWithPath: folder).appendingPathComponent(name).path
        }
    }

    private static func detectPictures(_ list: ImageFileList, request: DetectionRequest, detector: some ObjectDetecting,
                                       events: (DetectionEvent) -> Void) throws(WorkbenchError) -> DetectionOutcome {
        var copies: [String] = []
        if let folder = request.annotate {
            try prepareFolder(folder, inputs: list.files)
            copies = annotatedPicturePaths(list.files, folder: folder)
            try WritableOutput.checkConflicts(inputs: list.files, outputs: copies)
        }
        var outcome = DetectionOutcome()
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
            let objects = filtered(TiledDetection.detect(in: image, tilesPerSide: request.tilesPerSide,
                                                         minimumConfidence: request.resolvedMinimumConfidence, detector: detector),
                                   label: request.label)
            let result = PictureDetection(path: path, objects: objects, width: image.width, height: image.height)
            if !copies.isEmpty {
                do {
                    try BoxOverlay.renderPicture(image, boxes: objects.map(overlayBox), name: path, to: copies[index])
                } catch {
                    throw WorkbenchError(error)
                }
                events(.wrote(copies[index]))
            }
            events(.picture(result))
            outcome.pictures.append(result)
        }
        return outcome
    }

    /// Creates `folder` if missing; refuses one that is an input file.
    private static func prepareFolder(_ folder: String, inputs: [String]) throws(WorkbenchError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw WorkbenchError(path: folder, reason: "not a folder (annotated copies and clips go into a folder)") }
            return
        }
        do {
            try FolderCreation.create(folder)
        } catch {
            throw WorkbenchError(error)
        }
    }

    // MARK: Videos

    /// The paths of one video's outputs, fixed before any work.
    struct VideoOutputs {
        var annotated: String?
        var captions: String?
    }

    private static func detectVideos(_ videos: [String], request: DetectionRequest, detector: some ObjectDetecting,
                                     events: (DetectionEvent) -> Void) throws(WorkbenchError) -> [VideoDetection] {
        // Every video is probed first: a file that is not a video stops the run before anything is written.
        let tools: ExternalTools
        var probes: [VideoProbe] = []
        do {
            tools = try ExternalTools.locate(for: videos[0])
            for video in videos {
                let probe = try VideoProbe.probe(path: video, tools: tools)
                try SamplingLimits.check(every: request.every, video: probe, path: video)
                probes.append(probe)
            }
        } catch {
            throw WorkbenchError(error)
        }
        let annotated = try request.annotate.map { destination throws(WorkbenchError) in
            try LabelingReview.outputPaths(movies: videos, destination: destination, fileExtension: "mp4")
        }
        let captions = try request.vtt.map { destination throws(WorkbenchError) in
            try LabelingReview.outputPaths(movies: videos, destination: destination, fileExtension: "vtt")
        }
        for copy in annotated ?? [] {
            do {
                try VideoContainer.check(output: copy)
            } catch {
                throw WorkbenchError(error)
            }
        }
        if let clips = request.clips { try prepareFolder(clips, inputs: videos) }
        try WritableOutput.checkConflicts(inputs: videos, outputs: (annotated ?? []) + (captions ?? []) + [request.html])
        for output in (annotated ?? []) + (captions ?? []) + [request.html].compactMap({ $0 }) { try WritableOutput.check(output) }
        let review = DetectionReview(presenceLabel: request.label ?? (detector.labels.count == 1 ? detector.labels[0] : "object"),
                                     keepsPictures: request.html != nil)
        var results: [VideoDetection] = []
        var clipNames: Set<String> = []
        for (index, video) in videos.enumerated() {
            var result = try sample(video, probe: probes[index], request: request, detector: detector, review: review, events: events)
            if let folder = request.clips {
                let stem = URL(fileURLWithPath: video).deletingPathExtension().lastPathComponent
                for clipIndex in result.clips.indices {
                    var number = clipIndex + 1, name = "\(stem)-\(number).mp4"
                    while clipNames.contains(name) {
                        number += 1000
                        name = "\(stem)-\(number).mp4"
                    }
                    clipNames.insert(name)
                    let path = URL(fileURLWithPath: folder).appendingPathComponent(name).path
                    try WritableOutput.checkConflicts(inputs: videos, outputs: [path])
                    let clip = result.clips[clipIndex].clip
                    do {
                        try BoxOverlay.renderVideo(video, samples: overlaySamples(result), start: clip.start, end: clip.end, to: path, tools: tools)
                    } catch {
                        throw WorkbenchError(error)
                    }
                    result.clips[clipIndex].file = path
                    events(.wrote(path))
                }
            }
            if let annotated {
                do {
                    try BoxOverlay.renderVideo(video, samples: overlaySamples(result), to: annotated[index], tools: tools)
                } catch {
                    throw WorkbenchError(error)
                }
                events(.wrote(annotated[index]))
            }
            if let captions {
                do {
                    try AtomicFile.write(text: review.captions(result), to: captions[index])
                } catch {
                    throw WorkbenchError(error, context: "cannot write the captions")
                }
                events(.wrote(captions[index]))
            }
            review.add(result)
            events(.video(result))
            results.append(result)
        }
        if let html = request.html {
            try review.writePage(to: html, every: request.every, minimumConfidence: request.resolvedMinimumConfidence)
            events(.wrote(html))
        }
        return results
    }

    static func overlaySamples(_ result: VideoDetection) -> [BoxOverlay.Sample] {
        result.samples.map { BoxOverlay.Sample(second: $0.time, boxes: $0.objects.map(overlayBox)) }
    }

    /// One video through the detector: full frames every `every` seconds, presence fed to the clip rule as it goes.
    private static func sample(_ video: String, probe: VideoProbe, request: DetectionRequest, detector: some ObjectDetecting,
                               review: DetectionReview, events: (DetectionEvent) -> Void) throws(WorkbenchError) -> VideoDetection {
        let options = DecodeOptions(maximumPixels: request.maximumPixels, minimumCropSide: nil)
        let source: VideoFrameSource
        do {
            source = try VideoFrameSource(path: video, every: request.every, options: options)
        } catch {
            throw WorkbenchError(error)
        }
        let frames = PrefetchingFrameSource(source, depth: prefetchedFrames)
        frames.start()
        defer { frames.close() }
        events(.videoStarted(path: video, expectedSamples: source.expectedFrameCount))
        var presence = PresenceClips(rule: request.clipRule)
        var clips: [VideoDetection.Clip] = []
        var samples: [VideoDetection.Sample] = []
        review.startVideo()
        do {
            var finished = false
            while !finished {
                // A few frames at a time, so a detector with worker threads runs them side by side.
                var batch: [Frame] = []
                while batch.count < framesPerBatch, let frame = try frames.nextFrame() { batch.append(frame) }
                finished = batch.count < framesPerBatch
                let found = TiledDetection.detect(in: batch.map(\.image), tilesPerSide: request.tilesPerSide,
                                                  minimumConfidence: request.resolvedMinimumConfidence, detector: detector)
                for (frame, all) in zip(batch, found) {
                    let objects = filtered(all, label: request.label)
                    if let clip = presence.add(time: frame.second, present: !objects.isEmpty) { clips.append(.init(clip: clip, file: nil)) }
                    review.observe(frame: frame, objects: objects)
                    samples.append(.init(time: frame.second, objects: objects))
                }
                events(.progress(done: samples.count, expected: source.expectedFrameCount))
            }
        } catch {
            throw WorkbenchError(error)
        }
        guard !samples.isEmpty else { throw WorkbenchError(path: video, reason: "no frames could be decoded (an empty video)") }
        let lastTime = samples[samples.count - 1].time
        // ffprobe's length when it reaches the last sample; else one interval past it.
        let duration = probe.duration.flatMap { $0 > lastTime ? $0 : nil } ?? lastTime + request.every
        if let clip = presence.finish(videoEnd: duration) { clips.append(.init(clip: clip, file: nil)) }
        let size = probe.uprightSize
        return VideoDetection(path: video, samples: samples, clips: clips, duration: duration, width: size.width, height: size.height)
    }
}
