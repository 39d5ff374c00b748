import Foundation
import Workbench

/// What `trace` prints: one line, or (`--json`) the curve and its frames.
enum TraceRendering {
    /// "flight.mp4: curve from (20, 100) through (60, 20) to (100, 100), growing over frames 25–50 (1.00–2.00 s)".
    static func text(_ result: TraceResult) -> String {
        let curve = result.animation.curve
        let first = result.frames.first, last = result.frames.last
        return "\(result.output): curve from \(point(curve.start)) through \(point(curve.through)) to \(point(curve.end)), "
            + "growing over frames \(first?.frame ?? 0)–\(last?.frame ?? 0) "
            + "(\(String(format: "%.2f", first?.time ?? 0))–\(String(format: "%.2f", last?.time ?? 0)) s)\n"
    }

    /// `trace --json`: one object.
    struct Output: Encodable {
        let video: String
        let output: String
        let points: [OverlayPoint]
        let control: OverlayPoint
        let from: Double
        let duration: Double
        let framesPerSecond: Double
        let color: String
        let width: Double
        let frames: [TraceFrame]

        init(_ result: TraceResult, video: String) {
            let animation = result.animation
            self.video = video
            output = result.output
            points = [animation.curve.start, animation.curve.through, animation.curve.end]
            control = animation.curve.control
            from = animation.start
            duration = animation.duration
            framesPerSecond = animation.framesPerSecond
            color = animation.color.hex
            width = animation.strokeWidth
            frames = result.frames
        }
    }

    private static func point(_ point: OverlayPoint) -> String {
        func number(_ value: Double) -> String { value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value) }
        return "(\(number(point.x)), \(number(point.y)))"
    }
}
