import ImageCodecs
import Video

/// One video through a detector: full upright frames every `every` seconds, the boxes of each, and the clips the
/// presence rule (`PresenceClips`) cuts from them, as `detect` on a video does.
public struct VideoSampling {
    /// Frames decoded ahead of the detector: full frames are large, and the detector is the slower side.
    static let prefetchedFrames = 8
    /// Video frames handed to the detector at once: enough for the worker threads of a small machine, few
    /// enough that full frames cost little memory.
    static let framesPerBatch = 4

    /// Seconds between sampled frames.
    public var every: Double
    /// `TiledDetection`'s grid side; 1 runs the detector on the whole frame only.
    public var tilesPerSide: Int
    /// Boxes scoring below this are dropped.
    public var minimumConfidence: Float
    /// Only boxes of this label count; nil keeps every label.
    public var label: String?
    /// When a clip starts and stops.
    public var clipRule: PresenceClips.Rule
    /// Frames over this many pixels are refused.
    public var maximumPixels: Int

    /// The sampling of a request.
    public init(
        every: Double, tilesPerSide: Int, minimumConfidence: Float, label: String?, clipRule: PresenceClips.Rule,
        maximumPixels: Int
    ) {
        self.every = every
        self.tilesPerSide = tilesPerSide
        self.minimumConfidence = minimumConfidence
        self.label = label
        self.clipRule = clipRule
        self.maximumPixels = maximumPixels
    }

    /// `objects` with `label`'s only, or all of them when no label is asked for.
    public static func filtered(_ objects: [DetectedObject], label: String?) -> [DetectedObject] {
        guard let label else { return objects }
        return objects.filter { $0.label == label }
    }

    /// Samples `video` (probed as `probe`). `started` gets the expected sample count once decoding starts,
    /// `observe` each frame with its kept boxes (in time order), `progress` the samples done after each batch.
    /// Clips carry no file: writing them is the caller's.
    public func sample(
        _ video: String, probe: VideoProbe, detector: some ObjectDetecting, started: (_ expectedSamples: Int?) -> Void,
        observe: (Frame, [DetectedObject]) -> Void, progress: (_ done: Int, _ expected: Int?) -> Void
    ) throws(VideoError) -> VideoDetection {
        let source = try VideoFrameSource(path: video, every: every, options: DecodeOptions(maximumPixels: maximumPixels, minimumCropSide: nil))
        let frames = PrefetchingFrameSource(source, depth: Self.prefetchedFrames)
        frames.start()
        defer { frames.close() }
        started(source.expectedFrameCount)
        var presence = PresenceClips(rule: clipRule)
        var clips: [VideoDetection.Clip] = []
        var samples: [VideoDetection.Sample] = []
        var finished = false
        while !finished {
            // A few frames at a time, so a detector with worker threads runs them side by side.
            var batch: [Frame] = []
            while batch.count < Self.framesPerBatch, let frame = try frames.nextFrame() { batch.append(frame) }
            finished = batch.count < Self.framesPerBatch
            let found = TiledDetection.detect(
                in: batch.map(\.image), tilesPerSide: tilesPerSide,
                minimumConfidence: minimumConfidence, detector: detector)
            for (frame, all) in zip(batch, found) {
                let objects = Self.filtered(all, label: label)
                if let clip = presence.add(time: frame.second, present: !objects.isEmpty) { clips.append(.init(clip: clip, file: nil)) }
                observe(frame, objects)
                samples.append(.init(time: frame.second, objects: objects))
            }
            progress(samples.count, source.expectedFrameCount)
        }
        guard !samples.isEmpty else { throw VideoError(.noFrames, path: video, reason: "no frames could be decoded (an empty video)") }
        let lastTime = samples[samples.count - 1].time
        let duration = SamplingLimits.videoEnd(lastSample: lastTime, every: every, stated: probe.duration)
        if let clip = presence.finish(videoEnd: duration) { clips.append(.init(clip: clip, file: nil)) }
        let size = probe.uprightSize
        return VideoDetection(path: video, samples: samples, clips: clips, duration: duration, width: size.width, height: size.height)
    }
}
