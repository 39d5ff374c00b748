import FileFormats
import Foundation
import ImageCodecs
import Inference
import Labeling
import Phases
import Reports
import TensorCore
import Video

/// `workbench phases`: where each phase of a fixed order (address, backswing, impact, finish) starts in a video.
///
/// A model classifies a frame every `every` seconds, exactly as `label --every` does (the same frame sources and
/// batches, `MovieLabeling.label`), and the phase starts that maximise the summed log-probability under the
/// order are found by exact dynamic programming (`Phases.PhaseSegmentation`). Labels of the model outside the
/// order (`before`, `after` …) may only open the video before the first phase and close it after the last.
public enum PhasesWorkflow {
    /// What to find and where to write it.
    public struct Request: Sendable {
        /// The video file.
        public var video: String
        /// The phases' labels in their order; each must be one of the model's labels.
        public var order: [String]
        /// Seconds between classified frames; nil for the default (`PhaseSampling.defaultInterval(frameRate:)`).
        public var every: Double?
        /// The shortest a phase may be, in seconds.
        public var minimumLength: Double = PhaseSampling.defaultMinimumLength
        /// Where to write the phases as JSON (`PhaseTimeline`'s shape), if anywhere.
        public var output: String?
        /// Where to write WebVTT subtitles with one cue per phase, if anywhere.
        public var subtitles: String?
        /// Where to write the HTML page (the strip of phases, a picture at each start), if anywhere.
        public var page: String?
        /// The per-frame classifier whose labels include the phases (`run` loads it; nil for `findPhases`'s callers,
        /// who pass one loaded).
        public var model: String?
        /// Threads and pixel limit of the network (the feature cache is never used: frames are decoded, not files).
        public var features = FeatureSettings(usesCache: false)

        /// A request for `video`'s phases in `order`, with the default sampling and minimum length, writing nothing.
        public init(video: String, order: [String]) {
            self.video = video
            self.order = order
        }
    }

    /// What a phases run reports as it goes.
    public enum Event: Sendable {
        /// Frames classified so far, of the number the video's length gives (when known).
        case progress(done: Int, expected: Int?)
    }

    /// What a run found.
    public struct Result: Sendable {
        /// The phases found.
        public var timeline: PhaseTimeline
        /// The seconds between classified frames that were used.
        public var every: Double
        /// How many frames were classified.
        public var sampleCount: Int
        /// The shortest phase in samples the search allowed.
        public var minimumSamples: Int
        /// Wall-clock seconds of the whole run.
        public var seconds: Double
    }

    /// Finds `video`'s phases in `order` with `classifier`, writing nothing: the call `sync --model` makes.
    /// `every` nil takes the default sampling. Errors name the model (an order label it does not know), the
    /// video (not a video, too short for the phases at `minimumLength`), one line each.
    public static func findPhases(
        video: String, order: [String], classifier: Classifier, extractor: FeatureExtractor, every: Double? = nil,
        minimumLength: Double = PhaseSampling.defaultMinimumLength, progress: @escaping (_ done: Int, _ expected: Int?) -> Void = { _, _ in }
    ) throws(WorkbenchError) -> PhaseTimeline {
        var request = Request(video: video, order: order)
        request.every = every
        request.minimumLength = minimumLength
        return try run(request, classifier: classifier, extractor: extractor, progress: progress).timeline
    }

    /// `workbench phases`: loads `request.model`, finds the phases and writes the outputs the request names,
    /// reporting the frames classified to `events`.
    public static func run(_ request: Request, events: @escaping (Event) -> Void = { _ in }) throws(WorkbenchError) -> Result {
        guard let model = request.model else { throw WorkbenchError("no model to classify the frames with") }
        let classifier = try Classifier.load(path: model)
        var features = request.features
        features.usesCache = false
        return try run(
            request, classifier: classifier, extractor: FeatureExtractor(backbone: classifier.backbone, settings: features),
            progress: { events(.progress(done: $0, expected: $1)) })
    }

    /// Finds the phases with a loaded classifier and writes the outputs `request` names (each atomically; an output
    /// that is also an input or another output is refused before any work).
    static func run(
        _ request: Request, classifier: Classifier, extractor: FeatureExtractor,
        progress: @escaping (_ done: Int, _ expected: Int?) -> Void = { _, _ in }
    ) throws(WorkbenchError) -> Result {
        let started = Date()
        try checkOrder(request.order, classifier: classifier)
        guard request.minimumLength.isFinite, request.minimumLength >= 0 else {
            throw WorkbenchError("the minimum phase length must be a number of seconds, 0 or more, got \(request.minimumLength)")
        }
        try WritableOutput.checkConflicts(
            inputs: [classifier.path, request.video],
            outputs: [request.output, request.subtitles, request.page])
        // Before a frame is decoded: a missing folder is found now, not after the work.
        for output in [request.output, request.subtitles, request.page].compactMap({ $0 }) { try WritableOutput.check(output) }
        let probe = try probeVideo(request.video)
        let every = request.every ?? PhaseSampling.defaultInterval(frameRate: probe.frameRate)
        try WorkbenchError.passingOn { try SamplingLimits.check(every: every, video: probe, path: request.video) }
        let minimumSamples = PhaseFinder.minimumSamples(minimumLength: request.minimumLength, interval: every)
        // A video whose stated length cannot hold the phases is refused before a frame is decoded.
        try WorkbenchError.passingOn {
            try PhaseSampling.checkLength(
                duration: probe.duration, every: every, phaseCount: request.order.count, minimumLength: request.minimumLength,
                minimumSamples: minimumSamples, video: request.video)
        }
        let pictures = request.page == nil ? nil : PhaseStartPictures(preprocessing: classifier.backbone.preprocessing)
        let labelled = try MovieLabeling.label(
            movie: request.video, classifier: classifier, extractor: extractor,
            sampling: .init(every: every), observe: pictures?.observer, progress: progress)
        let samples = PhaseFinder.Samples(
            times: labelled.frames.map(\.second), probabilities: labelled.frames.map(\.probabilities),
            interval: every,
            videoDuration: SamplingLimits.videoEnd(lastSample: labelled.frames.last?.second, every: every, stated: probe.duration))
        let timeline = try WorkbenchError.passingOn {
            try PhaseFinder.timeline(
                video: request.video, samples: samples, labels: classifier.labels, order: request.order,
                modelPath: classifier.path, minimumLength: request.minimumLength)
        }
        try write(timeline, request: request, duration: samples.end, every: every, modelPath: classifier.path, pictures: pictures)
        return Result(
            timeline: timeline, every: every, sampleCount: samples.times.count, minimumSamples: minimumSamples,
            seconds: Date().timeIntervalSince(started))
    }

    /// Refuses an empty order, a label twice, or a label the model does not know, naming the model.
    static func checkOrder(_ order: [String], classifier: Classifier) throws(WorkbenchError) {
        _ = try WorkbenchError.passingOn { try PhaseScores(probabilities: [], labels: classifier.labels, order: order, modelPath: classifier.path) }
    }

    /// Probes the video at `path`, refusing a missing file or a folder first (`PhasesCheckWorkflow` probes alike).
    static func probeVideo(_ path: String) throws(WorkbenchError) -> VideoProbe {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw WorkbenchError(path: path, reason: "no such video file")
        }
        guard !isDirectory.boolValue else {
            throw WorkbenchError(path: path, reason: "is a folder: phases are found in a video file")
        }
        return try WorkbenchError.passingOn { try VideoProbe.probe(path: path, tools: try ExternalTools.locate(for: path)) }
    }

    private static func write(
        _ timeline: PhaseTimeline, request: Request, duration: Double, every: Double, modelPath: String,
        pictures: PhaseStartPictures?
    ) throws(WorkbenchError) {
        // The writer's errors say "cannot write" themselves.
        try WorkbenchError.passingOn {
            if let output = request.output { try AtomicFile.write(text: timeline.jsonText(), to: output) }
            if let subtitles = request.subtitles { try AtomicFile.write(text: Self.subtitles(timeline), to: subtitles) }
        }
        if let page = request.page {
            let html = Self.page(
                timeline, duration: duration, every: every, modelPath: modelPath,
                picture: { pictures?.picture(at: $0) })
            try ModelReports.write(html, to: page)
        }
    }

    /// WebVTT subtitles with one cue per phase: the label (isolated) and its confidence.
    public static func subtitles(_ timeline: PhaseTimeline) -> String {
        WebVTT.document(
            stretches: timeline.phases.map {
                LabelStretch(start: $0.start, end: $0.end, label: $0.label, meanConfidence: Float($0.confidence ?? 0))
            })
    }

    /// The HTML page of `timeline` (Pages' `PhaseReportPage`): the strip over a video of `duration` seconds
    /// sampled every `every` seconds, with `picture(second)` (the frame nearest that time) at each phase's start.
    public static func page(
        _ timeline: PhaseTimeline, duration: Double, every: Double, modelPath: String,
        picture: (Double) -> Picture? = { _ in nil }
    ) -> String {
        PhaseReportPage(
            title: "Phases: \(Markup.isolate(ModelReportPage.fileName(timeline.video)))",
            subtitle: [
                "Model \(Markup.isolate(modelPath)), one frame every \(Markup.number(every, decimals: 4)) s, order "
                    + timeline.order.map(Markup.isolate).joined(separator: " → ")
            ],
            video: timeline.video, duration: duration, order: timeline.order,
            phases: timeline.phases.map { phase in
                PhaseReportPage.Phase(
                    label: phase.label, start: phase.start, end: phase.end, confidence: phase.confidence,
                    picture: picture(phase.start))
            }
        ).html()
    }
}
