import FileFormats
import Foundation

/// A small copy of a video that every browser plays (`BrowserPlayability`), for a review page whose video a
/// browser cannot play as it is: H.264 in 8-bit 4:2:0 (libx264, CRF 23), the index in front (`+faststart`),
/// at most `maximumWidth` × `maximumHeight` (scaled down keeping its shape, never up), the video's own frame rate,
/// its sound (if any) as AAC. Written to a temporary file beside the output and renamed over it only when whole.
public enum PagePreview {
    /// The largest preview, in pixels: enough to see who is there, small enough to make quickly.
    public static let maximumWidth = 1280, maximumHeight = 720

    /// Writes the preview of `video` to `output` (an MP4 name). Errors, each "path: reason": the video cannot be
    /// read, this ffmpeg has no H.264 encoder, ffmpeg fails (its last line given), the output cannot be written.
    public static func write(video: String, to output: String, tools: ExternalTools) throws(VideoError) {
        let probe = try VideoProbe.probe(path: video, tools: tools)
        guard try HighlightReel.videoEncoder(tools: tools, subject: output) == "libx264" else {
            throw VideoError(.toolFailed, path: output, reason: "cannot make a preview a browser plays: this ffmpeg has no H.264 encoder (libx264)")
        }
        let target = try RenderTarget(output: output)
        // Halved sides stay even (yuv420p needs that); a video already inside the bounds keeps its size.
        let scale =
            "scale=w='min(\(maximumWidth),iw)':h='min(\(maximumHeight),ih)':force_original_aspect_ratio=decrease:force_divisible_by=2"
        var arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", MediaPath.url(video)]
        arguments += ["-map", "0:v:0", "-vf", "\(scale),format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23"]
        arguments += probe.hasAudio ? ["-map", "0:a:0", "-c:a", "aac", "-b:a", "128k"] : []
        arguments += ["-progress", "pipe:1", "-nostats"] + target.arguments
        let frames = WholeNumber.clamped((probe.duration ?? 0) * (probe.frameRate ?? 0), .toNearestOrAwayFromZero, to: 0...Int.max) ?? 0
        try FFmpegRun.run(
            tools: tools, arguments: arguments, subject: video, target: target, outputFrames: frames,
            what: "make a preview for the page", progress: nil)
    }
}
