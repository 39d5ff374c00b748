import Foundation
import Overlays
import Video

/// What `workbench trace` is asked to do: a video, three points, when and how fast the curve grows, how it looks.
public struct TraceRequest: Sendable {
    /// The video to draw on.
    public var video: String
    /// The curve's start, a point it passes (at t = ½) and its end, in the video's pixels (upright frame).
    public var points: [OverlayPoint]
    /// When the curve starts growing, in seconds from the start of the video.
    public var start: Double
    /// How long it grows, in seconds (then it stays).
    public var duration: Double
    /// The stroke's colour.
    public var color: OverlayColor
    /// The stroke's width in pixels; nil for `CurveAnimation.defaultStrokeWidth` (1/120 of the height, at least 3).
    public var strokeWidth: Double?
    /// The video to write (`.mp4`, `.m4v`, `.mov` or `.mkv`; a device such as `/dev/null` is written through).
    public var output: String

    /// The default growing time, in seconds.
    public static let defaultDuration = 1.0
    /// The default colour.
    public static let defaultColor = OverlayColor(red: 255, green: 255, blue: 0)

    /// A request from its parts.
    public init(
        video: String, points: [OverlayPoint], start: Double, duration: Double = defaultDuration,
        color: OverlayColor = defaultColor, strokeWidth: Double? = nil, output: String
    ) {
        self.video = video
        self.points = points
        self.start = start
        self.duration = duration
        self.color = color
        self.strokeWidth = strokeWidth
        self.output = output
    }
}

/// One frame of a trace: how much of the curve it shows and where the curve's tip is.
public struct TraceFrame: Sendable, Equatable, Codable {
    /// The video frame (0-based).
    public let frame: Int
    /// Its time in seconds (frame / frame rate).
    public let time: Double
    /// The share of the curve shown: t from 0 to this.
    public let progress: Double
    /// The curve's point at `progress`: the tip of what is drawn.
    public let point: OverlayPoint
}

/// What `workbench trace` did.
public struct TraceResult: Sendable {
    /// The animation drawn: the curve, its control point, stroke, timing and overlay region.
    public let animation: CurveAnimation
    /// Every frame from the curve's first to the first that shows it whole (or the video's last); later frames
    /// show it whole.
    public let frames: [TraceFrame]
    /// The video written.
    public let output: String
}

/// What a trace run reports as it goes.
public enum TraceEvent: Sendable {
    /// The share of the video rendered so far, 0 to 1.
    case rendering(Double)
}

/// `workbench trace`: a ball's flight drawn over a video, a quadratic curve through three points growing from a
/// chosen moment, drawn by Workbench (`Overlays`) and composited by ffmpeg (`TracedVideo`).
public enum TraceWorkflow {
    /// Checks the request and the video (before any work), plans the animation and renders it, reporting the share
    /// rendered to `events`.
    public static func run(
        _ request: TraceRequest, events: @escaping (TraceEvent) -> Void = { _ in }
    ) throws(WorkbenchError) -> TraceResult {
        guard request.points.count == 3 else {
            throw WorkbenchError("a trace needs 3 points (start, a point it passes, end), not \(request.points.count)")
        }
        try WritableOutput.check(request.output)
        try WritableOutput.checkConflicts(inputs: [request.video], outputs: [request.output])
        return try WorkbenchError.passingOn {
            let tools = try ExternalTools.locate(for: request.video)
            let input = try SideBySideVideo.probe(videos: [request.video], tools: tools)[0]
            let size = input.probe.uprightSize
            let curve = QuadraticCurve(start: request.points[0], through: request.points[1], end: request.points[2])
            let animation = try CurveAnimation(
                video: request.video, curve: curve,
                strokeWidth: request.strokeWidth ?? CurveAnimation.defaultStrokeWidth(height: size.height), color: request.color,
                start: request.start, duration: request.duration, framesPerSecond: input.framesPerSecond,
                frameCount: input.frameCount, frameSize: size)
            let region = animation.region
            let overlay = TracedVideo.OverlaySequence(
                x: region.x, y: region.y, width: region.width, height: region.height, firstFrame: animation.firstFrame,
                count: animation.pictureCount, framesPerSecond: animation.framesPerSecond
            ) { animation.picture($0) }
            try TracedVideo.render(
                video: request.video, probe: input.probe, frameCount: input.frameCount, overlay: overlay,
                to: request.output, tools: tools, progress: { events(.rendering($0)) })
            let frames = (0..<animation.pictureCount).map { index in
                let frame = animation.firstFrame + index
                let share = animation.progress(ofFrame: frame)
                return TraceFrame(
                    frame: frame, time: Double(frame) / animation.framesPerSecond, progress: share,
                    point: curve.point(at: share))
            }
            return TraceResult(animation: animation, frames: frames, output: request.output)
        }
    }
}
