import Foundation
import Phases
import Video

/// What `workbench sync` is asked to do: two to four videos, their phases, how to arrange them and where to write.
public struct SyncRequest: Sendable {
    /// The videos, in the order they are placed (left to right, top to bottom); the first sets the frame rate.
    public var videos: [String]
    /// Each video's phase file (`PhaseTimeline` JSON, written by `workbench phases` or by hand), in `videos` order;
    /// empty when a `SyncPhaseModel` finds the phases instead.
    public var phaseFiles: [String]
    /// Side by side or one above the other (3 or 4 videos always make a 2 × 2 grid).
    public var stack: SideBySideVideo.Stack
    /// The video (0-based) whose sound the output carries, silent during its holds; nil for no sound.
    public var audioInput: Int?
    /// The video to write (`.mp4`, `.m4v`, `.mov` or `.mkv`; a device such as `/dev/null` is written through).
    public var output: String
    /// Whether a phase file whose `"video"` names another input (`PhaseFileVideos`) is used anyway, for the video it
    /// was given for, and listed in `SyncResult.phaseFileMismatches`; by default it is refused.
    public var acceptsOtherVideos = false
    /// The model that finds the phases when there are no phase files.
    public var phaseModel: SyncPhaseModel?

    /// A request from its parts.
    public init(
        videos: [String], phaseFiles: [String], stack: SideBySideVideo.Stack = .horizontal, audioInput: Int? = nil,
        output: String
    ) {
        self.videos = videos
        self.phaseFiles = phaseFiles
        self.stack = stack
        self.audioInput = audioInput
        self.output = output
    }
}

/// How `sync` finds the phases when no phase files are given: a per-frame model and the order
/// (`PhasesWorkflow.findPhases` on each video, at its default sampling and minimum length).
public struct SyncPhaseModel: Sendable {
    /// The per-frame classifier whose labels include the phases.
    public var model: ClassifierSource
    /// The phases' labels in their order.
    public var order: [String]
    /// Threads and pixel limit of the model's network (frames are decoded, never cached).
    public var features = FeatureSettings(usesCache: false)

    /// A phase model from its parts.
    public init(model: ClassifierSource, order: [String]) {
        self.model = model
        self.order = order
    }
}

/// What `workbench sync` did.
public struct SyncResult: Sendable {
    /// The plan rendered: each phase's output frames and each input's share and hold.
    public let plan: SyncPlan
    /// Each input's timeline, as read.
    public let timelines: [PhaseTimeline]
    /// The video written.
    public let output: String
    /// Seconds spent rendering (ffmpeg: decoding, filtering, encoding).
    public let renderSeconds: Double
    /// The phase files used although they name another input (only with `SyncRequest.acceptsOtherVideos`).
    public var phaseFileMismatches: [PhaseFileVideos.Mismatch] = []
}

/// Where `workbench sync` is.
public enum SyncEvent: Sendable {
    /// With a phase model: video `index` (0-based) has `done` of about `expected` frames classified.
    case findingPhases(index: Int, done: Int, expected: Int?)
    /// The inputs are probed and the plan made; rendering starts.
    case planned(SyncPlan)
    /// This fraction of the output's frames is encoded.
    case rendering(Double)
}

/// `workbench sync`: videos played phase by phase in one picture, every phase starting together in all of them
/// (`SyncPlan`), rendered by ffmpeg (`SideBySideVideo`). The phases come from phase files, or from a per-frame
/// model (`SyncPhaseModel`: `PhasesWorkflow.findPhases` on each video).
///
/// What happens at the edges, and why: the output covers the phases only (what comes before the first phase and
/// after the last is left out, in every input), since only the phases can be put in step. Inputs at another frame
/// rate than the first are resampled to it by ffmpeg's `fps` filter (a phase boundary may then fall a frame from
/// where that input's own frame would put it). Orders that differ between files, a missing or misplaced phase, or
/// a phase ending after its video are errors naming the phase file; so is a phase file that names another of the
/// inputs (`PhaseFileVideos`), unless the request accepts it.
public enum SyncWorkflow {
    /// Checks the request and the files (before any work), reads the phase files (or reads the phase model and
    /// finds each video's phases with it), plans and renders.
    public static func run(_ request: SyncRequest, events: @escaping (SyncEvent) -> Void = { _ in }) throws(WorkbenchError) -> SyncResult {
        let model = try request.phaseModel.map { phaseModel throws(WorkbenchError) in
            let classifier = try phaseModel.model.load()
            return (
                classifier: classifier, order: phaseModel.order,
                extractor: FeatureExtractor(backbone: classifier.backbone, settings: phaseModel.features)
            )
        }
        let count = request.videos.count
        guard (2...SyncPlan.maximumInputs).contains(count) else {
            throw WorkbenchError("sync takes 2 to \(SyncPlan.maximumInputs) videos, not \(count)")
        }
        if model == nil, request.phaseFiles.count != count {
            throw WorkbenchError("\(count) videos need \(count) phase files (one each, in the same order), not \(request.phaseFiles.count)")
        }
        if model != nil, !request.phaseFiles.isEmpty {
            throw WorkbenchError("give phase files or a model to find the phases, not both")
        }
        if let audio = request.audioInput, !(0..<count).contains(audio) {
            throw WorkbenchError("there is no video \(audio + 1) to take the sound from (there are \(count))")
        }
        try WritableOutput.check(request.output)
        try WritableOutput.checkConflicts(
            inputs: request.videos + request.phaseFiles + [model?.classifier.path].compactMap { $0 },
            outputs: [request.output])
        if let model { try PhasesWorkflow.checkOrder(model.order, classifier: model.classifier) }
        // Named in the plan's errors: the phase file, or the video whose phases the model found.
        let sources = model == nil ? request.phaseFiles : request.videos
        return try WorkbenchError.passingOn {
            let tools = try ExternalTools.locate(for: request.videos[0])
            var timelines: [PhaseTimeline] = []
            var mismatches: [PhaseFileVideos.Mismatch] = []
            if let model {
                for (index, video) in request.videos.enumerated() {
                    timelines.append(
                        try PhasesWorkflow.findPhases(
                            video: video, order: model.order, classifier: model.classifier,
                            extractor: model.extractor
                        ) { done, expected in
                            events(.findingPhases(index: index, done: done, expected: expected))
                        })
                }
            } else {
                timelines = try request.phaseFiles.map { path throws(PhaseError) in try PhaseTimeline.read(path: path) }
                mismatches = PhaseFileVideos.mismatches(phaseFiles: request.phaseFiles, timelines: timelines, videos: request.videos)
                if !request.acceptsOtherVideos, let first = mismatches.first { throw first.error }
            }
            let inputs = try SideBySideVideo.probe(videos: request.videos, tools: tools)
            let plan = try SyncPlan(
                inputs: zip(sources, zip(timelines, inputs)).map { file, pair in
                    SyncPlan.Input(source: file, timeline: pair.0, framesPerSecond: pair.1.framesPerSecond, frameCount: pair.1.frameCount)
                })
            events(.planned(plan))
            let started = Date()
            try SideBySideVideo.render(
                plan: plan, inputs: inputs, stack: request.stack, audioInput: request.audioInput,
                to: request.output, tools: tools
            ) { events(.rendering($0)) }
            return SyncResult(
                plan: plan, timelines: timelines, output: request.output,
                renderSeconds: Date().timeIntervalSince(started), phaseFileMismatches: mismatches)
        }
    }
}
