import FileFormats

/// A curve drawn growing over a video (`workbench trace`): which video frames show how much of it, and the overlay
/// picture of each.
///
/// Video frame k is on screen from k / r seconds (r the frame rate). The curve appears on the first frame shown at
/// or after `start` (`firstFrame`) and shows t from 0 to `progress(k) = clamp((k / r − start) / duration, 0, 1)`:
/// growing linearly in t, whole once `duration` has passed, and kept whole to the end of the video. The overlay
/// pictures cover `region`, the curve's bounding box widened by the stroke (clipped to the frame), so they stay
/// small whatever the video's size; picture i belongs to frame `firstFrame + i`, and the last one (the whole
/// curve, or as much as the video had time for) stays on after.
public struct CurveAnimation: Sendable, Equatable {
    /// Marks the animation's `FileError`s.
    public enum ErrorDomain {}
    /// An animation that cannot be made: the video and the reason.
    public typealias Failure = FileError<ErrorDomain>

    /// The curve.
    public let curve: QuadraticCurve
    /// The stroke's width in pixels.
    public let strokeWidth: Double
    /// The stroke's colour.
    public let color: OverlayColor
    /// When the curve starts growing, in seconds.
    public let start: Double
    /// How long it grows, in seconds.
    public let duration: Double
    /// The video's frame rate.
    public let framesPerSecond: Double
    /// The first frame that shows the curve.
    public let firstFrame: Int
    /// How many overlay pictures there are: frames from `firstFrame` up to the first whole curve (or the video's end).
    public let pictureCount: Int
    /// Where the pictures go in the frame.
    public let region: PixelRectangle

    /// The default stroke width for a frame `height` pixels tall: 1/120 of it, at least 3 pixels.
    public static func defaultStrokeWidth(height: Int) -> Double { max(3, Double(height) / 120) }

    /// Plans the animation over a video of `frameSize` and `frameCount` frames at `framesPerSecond`. Errors (named
    /// after `video`): a point outside the frame (x in [0, width], y in [0, height]) or not a number; a start that
    /// is negative, not a number, or at or after the video's end; a duration or width that is not a positive number.
    public init(
        video: String, curve: QuadraticCurve, strokeWidth: Double, color: OverlayColor, start: Double, duration: Double,
        framesPerSecond: Double, frameCount: Int, frameSize: (width: Int, height: Int)
    ) throws(Failure) {
        for (name, point) in [("first", curve.start), ("second", curve.through), ("third", curve.end)] {
            guard point.x.isFinite, point.y.isFinite, point.x >= 0, point.y >= 0,
                point.x <= Double(frameSize.width), point.y <= Double(frameSize.height)
            else {
                throw Failure(
                    path: video,
                    reason: "the \(name) point (\(Self.number(point.x)),\(Self.number(point.y))) is outside the "
                        + "\(frameSize.width)x\(frameSize.height) frame (x from 0 to \(frameSize.width), y from 0 to \(frameSize.height))")
            }
        }
        guard framesPerSecond.isFinite, framesPerSecond > 0, frameCount > 0 else {
            throw Failure(path: video, reason: "the video states no frame rate or has no frames")
        }
        let end = Double(frameCount) / framesPerSecond
        guard start.isFinite, start >= 0 else { throw Failure(path: video, reason: "the start time \(start) is not a time in seconds") }
        // Clamped to the video first: a start of 1e18 s is a frame index Int cannot hold, and past the end anyway.
        let first = WholeNumber.clamped(start * framesPerSecond - 1e-3, .up, to: 0...frameCount) ?? frameCount
        guard first < frameCount else {
            throw Failure(
                path: video, reason: "the curve would start at \(Self.number(start)) s, at or after the end of the video (\(Self.number(end)) s)")
        }
        guard duration.isFinite, duration > 0 else {
            throw Failure(path: video, reason: "the duration \(duration) is not a positive number of seconds")
        }
        guard strokeWidth.isFinite, strokeWidth > 0, strokeWidth <= 1000 else {
            throw Failure(path: video, reason: "the stroke width \(strokeWidth) is not a number of pixels from 0 to 1000")
        }
        self.curve = curve
        self.strokeWidth = strokeWidth
        self.color = color
        self.start = start
        self.duration = duration
        self.framesPerSecond = framesPerSecond
        firstFrame = first
        // The first frame whose progress is 1, or the video's last.
        let whole = WholeNumber.clamped((start + duration) * framesPerSecond - 1e-3, .up, to: first...frameCount) ?? frameCount
        pictureCount = min(frameCount - 1, max(first, whole)) - first + 1
        let outline = curve.polyline(upTo: 1)
        let reach = strokeWidth / 2 + 1
        let left = max(0, Int(((outline.map(\.x).min() ?? 0) - reach).rounded(.down)))
        let top = max(0, Int(((outline.map(\.y).min() ?? 0) - reach).rounded(.down)))
        let right = min(frameSize.width, Int(((outline.map(\.x).max() ?? 0) + reach).rounded(.up)))
        let bottom = min(frameSize.height, Int(((outline.map(\.y).max() ?? 0) + reach).rounded(.up)))
        region = PixelRectangle(x: left, y: top, width: max(1, right - left), height: max(1, bottom - top))
    }

    /// How much of the curve (t from 0 to this) video frame `frame` shows; 0 before `firstFrame`, when nothing is drawn.
    public func progress(ofFrame frame: Int) -> Double {
        guard frame >= firstFrame else { return 0 }
        return min(1, max(0, (Double(frame) / framesPerSecond - start) / duration))
    }

    /// Overlay picture `index` (0 ..< `pictureCount`): straight RGBA, `region.width × region.height`.
    public func picture(_ index: Int) -> [UInt8] {
        let coverage = StrokeRasterizer.coverage(
            points: curve.polyline(upTo: progress(ofFrame: firstFrame + index)),
            width: strokeWidth, region: region)
        return StrokeRasterizer.rgba(coverage: coverage, color: color)
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : DisplayText.thousandths(value)
    }
}
