import Foundation
import FileFormats
import Video

/// How boxes are drawn on annotated pictures, frames and clips.
public enum DetectionOverlay {
    /// A box's caption: `person 0.87`. A label holding bidi controls (a trained detector's, from its file) is
    /// isolated, so it cannot reverse the score beside it; others are drawn as they are.
    public static func caption(_ object: DetectedObject) -> String {
        let label = object.label.unicodeScalars.contains(where: DisplayText.isBidiControl) ? DisplayText.isolated(object.label) : object.label
        return "\(label) " + String(format: "%.2f", object.confidence)
    }

    /// `object` as the box `BoxOverlay` draws, with its caption.
    public static func box(_ object: DetectedObject) -> BoxOverlay.Box {
        BoxOverlay.Box(
            left: object.box.left, top: object.box.top, width: object.box.width, height: object.box.height,
            text: caption(object))
    }

    /// A video's samples as `BoxOverlay` draws them over the video.
    public static func samples(_ result: VideoDetection) -> [BoxOverlay.Sample] {
        result.samples.map { BoxOverlay.Sample(second: $0.time, boxes: $0.objects.map(box)) }
    }
}
